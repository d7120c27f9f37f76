// Package pb is the generated gRPC code of sched/distributed's protocol;
// tessera.proto says what each message means.
package pb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative tessera.proto

module github.com/tessera-go/tessera

go 1.26.0

require (
	github.com/emicklei/dot v1.6.2
	github.com/klauspost/compress v1.20.3
	gonum.org/v1/gonum v0.17.0
)

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0
)

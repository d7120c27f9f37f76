module github.com/tessera-go/tessera

go 1.26

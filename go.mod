module github.com/tessera-go/tessera

go 1.26

require github.com/emicklei/dot v1.6.2

// Not a module to build: these are replacement sources for Go 1.23.5's
// standard library, used through `go build -overlay` (see README.md). This
// go.mod only keeps `go build ./...` in tools/oracle from compiling them.
module joinkit/tools/oracle/go125

go 1.23

module github.com/nri-ts/nri-ts/packages/e2e/pause

go 1.24

module github.com/xbf-format/xbf/go

go 1.26.8

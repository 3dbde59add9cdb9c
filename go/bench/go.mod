module github.com/xbf-format/xbf/go/bench

go 1.26.8

require (
	github.com/fxamacker/cbor/v2 v2.10.0
	github.com/goccy/go-json v0.12.0
	github.com/tinylib/msgp v1.6.5
	github.com/vmihailenco/msgpack/v5 v5.4.1
	github.com/xbf-format/xbf/go v0.0.0
)

require (
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
)

replace github.com/xbf-format/xbf/go => ../

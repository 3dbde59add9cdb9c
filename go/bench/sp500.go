package bench

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file sp500.go -o sp500_msgp.go -tests=false

// Quote is one trading day of vega-datasets' sp500-2000.csv: a date and
// six numbers, five of them prices.
type Quote struct {
	Date     string  `json:"date" msgpack:"date" cbor:"date" msg:"date" xbf:"date"`
	Open     float64 `json:"open" msgpack:"open" cbor:"open" msg:"open" xbf:"open"`
	High     float64 `json:"high" msgpack:"high" cbor:"high" msg:"high" xbf:"high"`
	Low      float64 `json:"low" msgpack:"low" cbor:"low" msg:"low" xbf:"low"`
	Close    float64 `json:"close" msgpack:"close" cbor:"close" msg:"close" xbf:"close"`
	AdjClose float64 `json:"adjclose" msgpack:"adjclose" cbor:"adjclose" msg:"adjclose" xbf:"adjclose"`
	Volume   int64   `json:"volume" msgpack:"volume" cbor:"volume" msg:"volume" xbf:"volume"`
}

// Quotes is the list of records every encoder writes.
type Quotes []Quote

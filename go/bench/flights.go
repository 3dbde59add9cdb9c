// Package bench compares XBF's Marshal and Unmarshal with other Go
// encoders on the project's datasets. It is a module of its own so that
// the library's go.mod holds none of these dependencies.
package bench

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file flights.go -o flights_msgp.go -tests=false

// Flight is one record of vega-datasets' flights-*.json.
type Flight struct {
	Date        string `json:"date" msgpack:"date" cbor:"date" msg:"date" xbf:"date"`
	Delay       int    `json:"delay" msgpack:"delay" cbor:"delay" msg:"delay" xbf:"delay"`
	Distance    int    `json:"distance" msgpack:"distance" cbor:"distance" msg:"distance" xbf:"distance"`
	Origin      string `json:"origin" msgpack:"origin" cbor:"origin" msg:"origin" xbf:"origin"`
	Destination string `json:"destination" msgpack:"destination" cbor:"destination" msg:"destination" xbf:"destination"`
}

// Flights is a list of records, the unit every encoder writes.
type Flights []Flight

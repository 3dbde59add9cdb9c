package bench

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file earthquakes.go -o earthquakes_msgp.go -tests=false

// FeatureCollection is vega-datasets' earthquakes.json, a GeoJSON feature
// collection, typed as the Rust benchmarks type it (bench/src/data.rs):
// nested structs, a list of features, a fixed array of coordinates and
// optional numbers and strings (pointers). The whole collection is the
// unit every encoder writes.
type FeatureCollection struct {
	Type     string    `json:"type" msgpack:"type" cbor:"type" msg:"type" xbf:"type"`
	Metadata QuakeMeta `json:"metadata" msgpack:"metadata" cbor:"metadata" msg:"metadata" xbf:"metadata"`
	Features []Feature `json:"features" msgpack:"features" cbor:"features" msg:"features" xbf:"features"`
	BBox     []float64 `json:"bbox" msgpack:"bbox" cbor:"bbox" msg:"bbox" xbf:"bbox"`
}

// QuakeMeta is the collection's metadata object.
type QuakeMeta struct {
	Generated uint64 `json:"generated" msgpack:"generated" cbor:"generated" msg:"generated" xbf:"generated"`
	URL       string `json:"url" msgpack:"url" cbor:"url" msg:"url" xbf:"url"`
	Title     string `json:"title" msgpack:"title" cbor:"title" msg:"title" xbf:"title"`
	Status    uint32 `json:"status" msgpack:"status" cbor:"status" msg:"status" xbf:"status"`
	API       string `json:"api" msgpack:"api" cbor:"api" msg:"api" xbf:"api"`
	Count     uint32 `json:"count" msgpack:"count" cbor:"count" msg:"count" xbf:"count"`
}

// Feature is one earthquake.
type Feature struct {
	Type       string     `json:"type" msgpack:"type" cbor:"type" msg:"type" xbf:"type"`
	Properties QuakeProps `json:"properties" msgpack:"properties" cbor:"properties" msg:"properties" xbf:"properties"`
	Geometry   Geometry   `json:"geometry" msgpack:"geometry" cbor:"geometry" msg:"geometry" xbf:"geometry"`
	ID         string     `json:"id" msgpack:"id" cbor:"id" msg:"id" xbf:"id"`
}

// QuakeProps are a feature's properties; null in the file is a nil pointer.
type QuakeProps struct {
	Mag     *float64 `json:"mag" msgpack:"mag" cbor:"mag" msg:"mag" xbf:"mag"`
	Place   string   `json:"place" msgpack:"place" cbor:"place" msg:"place" xbf:"place"`
	Time    uint64   `json:"time" msgpack:"time" cbor:"time" msg:"time" xbf:"time"`
	Updated uint64   `json:"updated" msgpack:"updated" cbor:"updated" msg:"updated" xbf:"updated"`
	TZ      *int32   `json:"tz" msgpack:"tz" cbor:"tz" msg:"tz" xbf:"tz"`
	URL     string   `json:"url" msgpack:"url" cbor:"url" msg:"url" xbf:"url"`
	Detail  string   `json:"detail" msgpack:"detail" cbor:"detail" msg:"detail" xbf:"detail"`
	Felt    *int32   `json:"felt" msgpack:"felt" cbor:"felt" msg:"felt" xbf:"felt"`
	CDI     *float64 `json:"cdi" msgpack:"cdi" cbor:"cdi" msg:"cdi" xbf:"cdi"`
	MMI     *float64 `json:"mmi" msgpack:"mmi" cbor:"mmi" msg:"mmi" xbf:"mmi"`
	Alert   *string  `json:"alert" msgpack:"alert" cbor:"alert" msg:"alert" xbf:"alert"`
	Status  string   `json:"status" msgpack:"status" cbor:"status" msg:"status" xbf:"status"`
	Tsunami int32    `json:"tsunami" msgpack:"tsunami" cbor:"tsunami" msg:"tsunami" xbf:"tsunami"`
	Sig     int32    `json:"sig" msgpack:"sig" cbor:"sig" msg:"sig" xbf:"sig"`
	Net     string   `json:"net" msgpack:"net" cbor:"net" msg:"net" xbf:"net"`
	Code    string   `json:"code" msgpack:"code" cbor:"code" msg:"code" xbf:"code"`
	IDs     string   `json:"ids" msgpack:"ids" cbor:"ids" msg:"ids" xbf:"ids"`
	Sources string   `json:"sources" msgpack:"sources" cbor:"sources" msg:"sources" xbf:"sources"`
	Types   string   `json:"types" msgpack:"types" cbor:"types" msg:"types" xbf:"types"`
	NST     *int32   `json:"nst" msgpack:"nst" cbor:"nst" msg:"nst" xbf:"nst"`
	DMin    *float64 `json:"dmin" msgpack:"dmin" cbor:"dmin" msg:"dmin" xbf:"dmin"`
	RMS     *float64 `json:"rms" msgpack:"rms" cbor:"rms" msg:"rms" xbf:"rms"`
	Gap     *float64 `json:"gap" msgpack:"gap" cbor:"gap" msg:"gap" xbf:"gap"`
	MagType string   `json:"magType" msgpack:"magType" cbor:"magType" msg:"magType" xbf:"magType"`
	Type    string   `json:"type" msgpack:"type" cbor:"type" msg:"type" xbf:"type"`
	Title   string   `json:"title" msgpack:"title" cbor:"title" msg:"title" xbf:"title"`
}

// Geometry is a feature's point: longitude, latitude, depth.
type Geometry struct {
	Type        string     `json:"type" msgpack:"type" cbor:"type" msg:"type" xbf:"type"`
	Coordinates [3]float64 `json:"coordinates" msgpack:"coordinates" cbor:"coordinates" msg:"coordinates" xbf:"coordinates"`
}

package bench

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file movies.go -o movies_msgp.go -tests=false

// Movie is one record of vega-datasets' movies.json, typed as the Rust
// benchmarks type it (bench/src/data.rs): every field optional, a pointer
// (an option in XBF, null in the others), numbers as float64. Field names
// are identifiers; the file's keys with spaces are read by loadMovies.
type Movie struct {
	Title                *string  `json:"title" msgpack:"title" cbor:"title" msg:"title" xbf:"title"`
	USGross              *float64 `json:"us_gross" msgpack:"us_gross" cbor:"us_gross" msg:"us_gross" xbf:"us_gross"`
	WorldwideGross       *float64 `json:"worldwide_gross" msgpack:"worldwide_gross" cbor:"worldwide_gross" msg:"worldwide_gross" xbf:"worldwide_gross"`
	USDVDSales           *float64 `json:"us_dvd_sales" msgpack:"us_dvd_sales" cbor:"us_dvd_sales" msg:"us_dvd_sales" xbf:"us_dvd_sales"`
	ProductionBudget     *float64 `json:"production_budget" msgpack:"production_budget" cbor:"production_budget" msg:"production_budget" xbf:"production_budget"`
	ReleaseDate          *string  `json:"release_date" msgpack:"release_date" cbor:"release_date" msg:"release_date" xbf:"release_date"`
	MPAARating           *string  `json:"mpaa_rating" msgpack:"mpaa_rating" cbor:"mpaa_rating" msg:"mpaa_rating" xbf:"mpaa_rating"`
	RunningTimeMin       *float64 `json:"running_time_min" msgpack:"running_time_min" cbor:"running_time_min" msg:"running_time_min" xbf:"running_time_min"`
	Distributor          *string  `json:"distributor" msgpack:"distributor" cbor:"distributor" msg:"distributor" xbf:"distributor"`
	Source               *string  `json:"source" msgpack:"source" cbor:"source" msg:"source" xbf:"source"`
	MajorGenre           *string  `json:"major_genre" msgpack:"major_genre" cbor:"major_genre" msg:"major_genre" xbf:"major_genre"`
	CreativeType         *string  `json:"creative_type" msgpack:"creative_type" cbor:"creative_type" msg:"creative_type" xbf:"creative_type"`
	Director             *string  `json:"director" msgpack:"director" cbor:"director" msg:"director" xbf:"director"`
	RottenTomatoesRating *float64 `json:"rotten_tomatoes_rating" msgpack:"rotten_tomatoes_rating" cbor:"rotten_tomatoes_rating" msg:"rotten_tomatoes_rating" xbf:"rotten_tomatoes_rating"`
	IMDBRating           *float64 `json:"imdb_rating" msgpack:"imdb_rating" cbor:"imdb_rating" msg:"imdb_rating" xbf:"imdb_rating"`
	IMDBVotes            *float64 `json:"imdb_votes" msgpack:"imdb_votes" cbor:"imdb_votes" msg:"imdb_votes" xbf:"imdb_votes"`
}

// Movies is the list of records every encoder writes.
type Movies []Movie

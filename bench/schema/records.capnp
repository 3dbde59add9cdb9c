# Cap'n Proto schema of the bench's flat records (compiled by capnp through
# capnpc in bench/build.rs when the `capnp` feature is on and capnp is installed).
@0xd5a1c3e7f20b4a69;

struct Quote {
  date @0 :Text;
  open @1 :Float64;
  high @2 :Float64;
  low @3 :Float64;
  close @4 :Float64;
  adjclose @5 :Float64;
  volume @6 :UInt64;
}
struct QuoteList { rows @0 :List(Quote); }

struct Flight {
  date @0 :Text;
  delay @1 :Int32;
  distance @2 :Int32;
  origin @3 :Text;
  destination @4 :Text;
}
struct FlightList { rows @0 :List(Flight); }

struct FlightTime {
  delay @0 :Int32;
  distance @1 :Int32;
  time @2 :Float64;
}
struct FlightTimeList { rows @0 :List(FlightTime); }

struct MarketMsg {
  kind @0 :UInt32;
  timestampNs @1 :UInt64;
  sequence @2 :UInt64;
  symbol @3 :Text;
  price @4 :Int64;
  quantity @5 :UInt32;
  side @6 :UInt32;
  level @7 :UInt32;
  tradeId @8 :UInt64;
}
struct MarketList { rows @0 :List(MarketMsg); }

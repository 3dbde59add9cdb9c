throw new Error("no native extension (ts/bench/no-native)");

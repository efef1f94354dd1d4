import Benchmark
import BenchmarkSupport
import Workloads

/// `LuaEncoder`/`LuaDecoder` against hand-written C-API code and a JSON detour,
/// on states of 10, 1,000 and 100,000 items. Each operation maps the whole state one way. And one
/// small value (an `EchoRequest`, one `Int` field): the coders' fixed cost per call.
let benchmarks: @Sendable () -> Void = {
    let small = Fixture { try SmallValueFixture() }
    for way in SmallValueFixture.Way.allCases {
        Benchmark("Mapping one small value: into Lua, \(way.rawValue)", configuration: .micro) { benchmark in
            let fixture = try small.value()
            for _ in benchmark.scaledIterations { try fixture.mapIntoLua(way) }
        }
        Benchmark("Mapping one small value: out of Lua, \(way.rawValue)", configuration: .micro) { benchmark in
            let fixture = try small.value()
            for _ in benchmark.scaledIterations { blackHole(try fixture.mapOutOfLua(way)) }
        }
    }
    for count in [10, 1_000, 100_000] {
        let fixture = Fixture { try MappingFixture(count: count) }
        let configuration = Benchmark.Configuration.sized(count)
        for way in MappingFixture.Way.allCases {
            let name = "Mapping \(count) items"
            Benchmark("\(name): into Lua, \(way.rawValue)", configuration: configuration) { benchmark in
                let mapping = try fixture.value()
                for _ in benchmark.scaledIterations { try mapping.mapIntoLua(way) }
            }
            Benchmark("\(name): out of Lua, \(way.rawValue)", configuration: configuration) { benchmark in
                let mapping = try fixture.value()
                for _ in benchmark.scaledIterations { blackHole(try mapping.mapOutOfLua(way)) }
            }
        }
    }
}

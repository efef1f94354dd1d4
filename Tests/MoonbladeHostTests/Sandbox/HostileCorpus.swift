import MoonbladeHost

/// The corpus of hostile and buggy plugins: each must get a clear error with its place, leave the
/// state untouched and the host running.
enum HostileCorpus {
    static let memoryLimit = 64 << 20
    static let instructionBudget = 5_000_000
    static let sideEffectTimeLimit = Duration.milliseconds(500)
    /// Out of the way of the budget and the memory limit, which the corpus is about, even in slow
    /// (sanitized) builds; `CallTimeLimitTests` test the call time limit.
    static let callTimeLimit = Duration.seconds(60)
    static let budgetExceeded = "instruction budget of 5000000 instructions exceeded"
    static let memoryExceeded = "memory limit of 67108864 bytes exceeded"
    /// How long a dispatch may take to fail: what catches C work escaping a limit (it ran for minutes),
    /// generous for the pool's starvation in a full run; the error's message says which limit stopped it.
    static let timeBound = Duration.poolStarvationAllowance

    static let cases: [HostileCase] =
        syntaxAndLoading + errorObjects + runawayCode + workInC + memoryBombs + escapes
        + tampering + wrongResults + sideEffects + recursion + errorObjectsMore + sandboxMore

    /// The cases that do megabytes of work or fill the memory limit before they are stopped.
    static let casesAtScale =
        sizedWorkInC + patternsAtScale + limitsCaught + memoryMore + interceptors + sideEffectsAtScale
        + workInCMore + deepData

    /// The cases a run takes: all of them in a plain run. A sanitized run is ten times slower and is
    /// there for its data-race reports (the plain run gives the corpus's verdicts): it takes the side
    /// effects, which await Swift work and race the deadline timer, and every tenth other case. All
    /// of them held a thread of the two-thread pool for four minutes there, and tests elsewhere
    /// starved past their own time limits.
    static func takenInThisRun(_ cases: [HostileCase]) -> [HostileCase] {
        guard sanitizerSlowdown > 1 else { return cases }
        return cases.enumerated()
            .filter { $0.element.item == .sideEffect || $0.offset % sanitizerSlowdown == 0 }
            .map(\.element)
    }

    static let syntaxAndLoading = [
        HostileCase(
            name: "syntax error", topLevel: "local x = = 1", kind: .load, says: "unexpected symbol", line: 1),
        HostileCase(
            name: "typo in a global at load", topLevel: "local greeting = helo", kind: .load,
            says: "undefined global 'helo'", line: 1),
        HostileCase(
            name: "io at load", topLevel: "local f = io.open('/etc/passwd')", kind: .load,
            says: "undefined global 'io'", line: 1),
    ]

    static let errorObjects = [
        HostileCase(
            name: "error with a string", body: "error('plain failure')", kind: .runtime,
            says: "plain failure", line: 5),
        HostileCase(
            name: "error with a table", body: "error({ code = 42 })", kind: .runtime,
            says: "(error object is a table value)", line: 5),
        HostileCase(
            name: "error with nil", body: "error(nil)", kind: .runtime, says: "(error object is a nil value)",
            line: 5),
        HostileCase(name: "error with a number", body: "error(42)", kind: .runtime, says: "42", line: 5),
        HostileCase(
            name: "error with a boolean", body: "error(false)", kind: .runtime,
            says: "(error object is a boolean value)", line: 5),
        HostileCase(
            name: "error with a thread", body: "error(coroutine.create(print))", kind: .runtime,
            says: "(error object is a thread value)", line: 5),
        HostileCase(
            name: "error at level 0", body: "error('no place', 0)", kind: .runtime, says: "no place", line: 5),
        HostileCase(
            name: "error at level 2 blames the caller",
            body: "local function check(x) error('bad argument', 2) end\ncheck(1)",
            kind: .runtime, says: "bad argument", line: 6),
        HostileCase(
            name: "error with a __tostring table",
            body: "error(setmetatable({}, { __tostring = function() return 'custom' end }))",
            kind: .runtime, says: "custom", line: 5),
        HostileCase(
            name: "error whose __tostring raises",
            body: "error(setmetatable({}, { __tostring = function() error('nested') end }))",
            kind: .runtime, says: "table value whose __tostring failed", line: 5),
        HostileCase(
            name: "error whose __tostring loops", body: "error(setmetatable({}, { __tostring = function()\n  while true do end end }))",
            kind: .limit, says: budgetExceeded + " in the __tostring of an error object", line: 5),
        HostileCase(
            name: "error whose __tostring builds a huge string",
            body: "local e = setmetatable({}, { __tostring = function() return ('x'):rep(1 << 30) end })\nerror(e)",
            kind: .limit, says: memoryExceeded + " in the __tostring of an error object", line: 6),
        HostileCase(
            name: "error whose __tostring loops, raised in a coroutine",
            body: "coroutine.wrap(function()\n  error(setmetatable({}, { __tostring = function() while true do end end }))\nend)()",
            kind: .limit, says: budgetExceeded, line: 5),  // a table error leaves a coroutine without a place
        HostileCase(
            name: "error whose __tostring returns a table",
            body: "error(setmetatable({}, { __tostring = function() return {} end }))",
            kind: .runtime, says: "table value whose __tostring failed", line: 5),
    ]

    static let runawayCode = [
        HostileCase(
            name: "while true", body: "while true do end", kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "loop in pcall, in a loop",
            body: "while true do pcall(function() while true do end end) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "loop in an xpcall handler", body: "xpcall(error, function() while true do end end)",
            kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "loop in a coroutine", body: "coroutine.wrap(function() while true do end end)()",
            kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "loop in a gsub callback",
            body: "string.gsub('abc', '%w', function() while true do end end)", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "loop in a metamethod",
            body: "local t = setmetatable({}, { __index = function() while true do end end })\nreturn t.x",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "loop in __close of a stopped coroutine",
            body:
                "coroutine.wrap(function() local guard <close> = setmetatable({}, { __close = function() while true do end end }) while true do end end)()",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "finalizer that loops",
            body: "setmetatable({}, { __gc = function() while true do end end })", kind: .runtime,
            says: "__gc is not available to plugins", line: 5),
        HostileCase(
            name: "finalizer that resurrects",
            body: "setmetatable({}, { __gc = function(o) payload.kept = o end })", kind: .runtime,
            says: "__gc is not available to plugins", line: 5),
        HostileCase(
            name: "finalizer that errors", body: "setmetatable({}, { __gc = function() error('in gc') end })",
            kind: .runtime,
            says: "__gc is not available to plugins", line: 5),
        HostileCase(
            name: "deep recursion", body: "local function f(n) return f(n + 1) + 1 end\nf(1)", kind: .runtime,
            says: "stack overflow",
            line: 5),
        HostileCase(
            name: "recursion through C", body: "local function f() string.gsub('x', 'x', f) end\nf()",
            kind: .runtime,
            says: "stack overflow", line: 5),
    ]

    /// Library functions that loop in C, where no Lua instruction runs.
    static let workInC = [
        HostileCase(
            name: "backtracking string.find", body: "local s = ('a'):rep(4000)\nreturn s:find(('a*'):rep(12) .. 'b')",
            kind: .limit, says: budgetExceeded, line: 6),
        HostileCase(
            name: "backtracking string.match", body: "return string.match(('a'):rep(4000), '(.-)(.-)(.-)(.-)b')",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "backtracking string.gmatch", body: "for a in ('a'):rep(4000):gmatch('(a-)(a-)(a-)b') do end",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "backtracking string.gsub caught by pcall, in a loop",
            body: "while true do pcall(string.gsub, ('a'):rep(4000), 'a-a-a-a-b', '') end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "a plain find with a long needle",
            body: "local s = ('a'):rep(200000)\nreturn s:find(('a'):rep(100000) .. 'b', 1, true)", kind: .limit,
            says: budgetExceeded, line: 6),
        HostileCase(
            name: "table.move over a huge range", body: "table.move({}, 1, 1 << 52, 1, {})", kind: .limit,
            says: budgetExceeded, line: 5),
    ]

    static let memoryBombs = [
        HostileCase(
            name: "table growth", body: "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end",
            kind: .limit,
            says: memoryExceeded, line: 5),
        HostileCase(
            name: "string.rep", body: "local s = ('x'):rep(1 << 30)", kind: .limit, says: memoryExceeded,
            line: 4),
        HostileCase(
            name: "concatenation loop", body: "local s = 'x' while true do s = s .. s end", kind: .limit,
            says: memoryExceeded, line: 4),
        HostileCase(
            name: "memory errors swallowed in a loop",
            body: "while true do pcall(string.rep, 'x', 1 << 30) end", kind: .limit,
            says: memoryExceeded, line: 5),
        HostileCase(
            name: "memory errors swallowed by xpcall", body: "while true do xpcall(string.rep, print, 'x', 1 << 30) end",
            kind: .limit, says: memoryExceeded, line: 5),
        HostileCase(
            name: "memory errors swallowed by coroutines",
            body: "while true do coroutine.resume(coroutine.create(string.rep), 'x', 1 << 30) end", kind: .limit,
            says: memoryExceeded, line: 5),
        HostileCase(
            name: "table growth caught by pcall",
            body: "local t = {}\npcall(function() for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end end)\nwhile true do end",
            kind: .limit, says: memoryExceeded, line: 6),
    ]

    static let escapes = [
        HostileCase(
            name: "typo in a global", body: "pritn('hello')", kind: .runtime,
            says: "undefined global 'pritn'", line: 5),
        HostileCase(
            name: "os.execute", body: "os.execute('echo pwned')", kind: .runtime, says: "field 'execute'",
            line: 5),
        HostileCase(name: "os.exit", body: "os.exit(1)", kind: .runtime, says: "field 'exit'", line: 5),
        HostileCase(
            // require loads only the plugin's own Lua modules: a library name finds no file there.
            name: "require", body: "require('os')", kind: .runtime, says: "require(\"os\"): no module os.lua in the plugin's folder",
            line: 5),
        HostileCase(
            name: "package", body: "local loaded = package.loaded", kind: .runtime,
            says: "undefined global 'package'", line: 5),
        HostileCase(
            name: "debug", body: "debug.sethook()", kind: .runtime, says: "undefined global 'debug'", line: 5),
        HostileCase(
            name: "load of a binary chunk", body: "assert(load(string.char(27) .. 'Lua', 'bin', 'b'))",
            kind: .runtime,
            says: "attempt to load a binary chunk", line: 5),
        HostileCase(
            name: "string.dump", body: "string.dump(print)", kind: .runtime, says: "field 'dump'", line: 5),
        HostileCase(
            name: "loadfile", body: "loadfile('/etc/passwd')", kind: .runtime,
            says: "undefined global 'loadfile'", line: 5),
        HostileCase(
            name: "dofile", body: "dofile('/etc/passwd')", kind: .runtime, says: "undefined global 'dofile'",
            line: 5),
        HostileCase(
            name: "setfenv", body: "setfenv(1, {})", kind: .runtime, says: "undefined global 'setfenv'",
            line: 5),
        HostileCase(
            // The chunk is named like the plugin so that the expected place reads the same.
            name: "load into the host's globals", body: "load('string.upper = nil', '=hostile/plugin.lua')()",
            kind: .runtime,
            says: "string is read-only (shared by every plugin): cannot set 'upper'", line: 1),
        HostileCase(
            name: "_ENV's metatable", body: "local mt = getmetatable(_ENV)\nmt.__index = nil", kind: .runtime,
            says: "attempt to index a boolean value (local 'mt')", line: 6),
        HostileCase(
            name: "collectgarbage('stop')", body: "collectgarbage('stop')", kind: .runtime,
            says: "collectgarbage(\"stop\") is not available to plugins", line: 5),
    ]

    static let tampering = [
        HostileCase(
            name: "the string metatable", body: "getmetatable('').__index = {}", kind: .runtime,
            says: "the string metatable is read-only", line: 5),
        HostileCase(
            name: "the string library through the metatable", body: "getmetatable('').__index.upper = nil",
            kind: .runtime,
            says: "string is read-only", line: 5),
        HostileCase(
            name: "a library field", body: "string.upper = nil", kind: .runtime,
            says: "string is read-only (shared by every plugin): cannot set 'upper'", line: 5),
        HostileCase(
            name: "rawset on a library", body: "rawset(table, 'insert', print)", kind: .runtime,
            says: "rawset: table is read-only", line: 5),
        HostileCase(
            name: "setmetatable on a library", body: "setmetatable(math, {})", kind: .runtime,
            says: "cannot change a protected metatable",
            line: 5),
        HostileCase(
            name: "setmetatable on _G", body: "setmetatable(_G, {})", kind: .runtime,
            says: "cannot change a protected metatable", line: 5),
    ]

    static let wrongResults = [
        HostileCase(
            name: "a string where an Int belongs", body: "state.counter = 'seven'", kind: .invalidState,
            says: "state.counter: expected Int, found string \"seven\"", line: 4),
        HostileCase(
            name: "returns a non-table", body: "return 42", kind: .invalidState,
            says: "returned a number; an updater changes the state table in place", line: 4),
        HostileCase(
            name: "yield in an updater", body: "coroutine.yield()", kind: .runtime,
            says: "attempt to yield from outside a coroutine", line: 5),
    ]

    static let sideEffects = [
        HostileCase(
            name: "side effect: while true", item: .sideEffect, body: "while true do end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "side effect: awaits past its time limit", item: .sideEffect,
            body: "ctx.deps.clock.stall()", kind: .limit,
            says: "time limit of 0.5 s exceeded while awaiting Swift work", line: 5),
        HostileCase(
            name: "side effect: busy past its time limit", item: .sideEffect,
            body: "while true do ctx.deps.clock.tick() for i = 1, 100000 do end end", kind: .limit,
            says: "time limit of 0.5 s exceeded",
            line: 5),
        HostileCase(
            name: "side effect: replaces a dependency", item: .sideEffect, body: "ctx.deps.clock.stall = nil",
            kind: .runtime,
            says: "ctx.deps.clock is read-only", line: 5),
    ]
}

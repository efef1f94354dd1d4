import MoonbladeHost

/// The corpus's second half: work done in C at scale, recursion through metamethods and the C stack,
/// limits met inside `pcall` and coroutines, more error objects, escapes, memory bombs and hostile
/// interceptors. The loops here run few instructions, each doing megabytes of work in C: the
/// instruction count alone would let them run for minutes (the corpus's call time limit is 60 s).
extension HostileCorpus {
    static let sizedWorkInC = [
        HostileCase(
            name: "string.rep with a separator, in a loop",
            body: "local s = ('x'):rep(1e6) while true do local r = s:rep(5, ',') end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "table.concat of a big table, in a loop",
            body: "local t = {} for i = 1, 1e5 do t[i] = 'abcdefgh' end\nwhile true do local r = table.concat(t, ',') end",
            kind: .limit, says: budgetExceeded, line: 6),
        HostileCase(
            name: "string.format of huge arguments, in a loop",
            body: "local s = ('x'):rep(1e6) while true do local r = string.format('%s%s%s%s', s, s, s, s) end",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "string.format with a huge width", body: "return string.format('%99999s', 'x')", kind: .runtime,
            says: "invalid conversion", line: 5),
        HostileCase(
            name: "string.packsize of a huge format, in a loop",
            body: "local f = ('i16'):rep(1e6) while true do string.packsize(f) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "string.pack of a huge format, in a loop",
            body: "local f = ('x'):rep(3e6) while true do string.pack(f) end", kind: .limit, says: budgetExceeded,
            line: 5),
        HostileCase(
            name: "string.unpack of many values, in a loop",
            body: "local f, d = ('b'):rep(1e5), ('x'):rep(1e5) while true do string.unpack(f, d) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "utf8.len of a huge string, in a loop",
            body: "local s = ('x'):rep(8e6) while true do utf8.len(s) end", kind: .limit, says: budgetExceeded,
            line: 5),
        HostileCase(
            name: "utf8.offset far into a huge string, in a loop",
            body: "local s = ('x'):rep(8e6) while true do utf8.offset(s, 4e6) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "string.upper of a huge string, in a loop",
            body: "local s = ('x'):rep(8e6) while true do s:upper() end", kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "concatenating a huge string, in a loop",
            body: "local s = ('x'):rep(8e6) while true do local r = s .. 'y' end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "tonumber of a huge blank string, in a loop",
            body: "local s = (' '):rep(8e6) .. '1' while true do tonumber(s) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "load of a huge chunk, in a loop",
            body: "local src = 'return ' .. ('1+'):rep(1e6) .. '1' while true do load(src) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "os.date of a huge format, in a loop",
            body: "local f = ('%Y'):rep(1e6) while true do os.date(f) end", kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "load with a reader that returns a megabyte forever",
            body: "local s, first = ('1+'):rep(5e5), true\nload(function() if first then first = false return 'return ' end return s end)",
            kind: .limit, says: budgetExceeded, line: 6),
        HostileCase(
            name: "load of a deeply nested chunk",
            body: "assert(load('return ' .. ('('):rep(1e5) .. '1' .. (')'):rep(1e5)))", kind: .runtime,
            says: "C stack overflow", line: 5),
        HostileCase(
            name: "load of deeply nested tables",
            body: "assert(load('return ' .. ('{'):rep(1e5) .. ('}'):rep(1e5)))", kind: .runtime,
            says: "C stack overflow", line: 5),
        HostileCase(
            name: "table.insert at the front of a big table, in a loop",
            body: "local t = {} for i = 1, 1e5 do t[i] = i end\nwhile true do table.insert(t, 1, 0) table.remove(t, 1) end",
            kind: .limit, says: budgetExceeded, line: 6),
        HostileCase(
            name: "table.unpack of a big table, in a loop",
            body: "local t = {} for i = 1, 1e5 do t[i] = i end\nwhile true do select('#', table.unpack(t)) end",
            kind: .limit, says: budgetExceeded, line: 6),
        HostileCase(
            name: "table.unpack of 1e8 values", body: "return table.unpack({}, 1, 1e8)", kind: .runtime,
            says: "too many results to unpack", line: 5),
        HostileCase(
            name: "string.byte of a long slice, in a loop",
            body: "local s = ('x'):rep(5e5) while true do local n = select('#', s:byte(1, -1)) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "string.byte of the whole of a huge string", body: "return string.byte(('x'):rep(1e7), 1, -1)",
            kind: .runtime, says: "string slice too long", line: 5),
        HostileCase(
            name: "table.concat of a huge range through __index",
            body: "local t = setmetatable({}, { __index = function() return 'x' end }) return table.concat(t, '', 1, 1e9)",
            kind: .limit, says: budgetExceeded, line: 5),
    ]

    static let patternsAtScale = [
        HostileCase(
            name: "gsub with a table replacement on a long subject, in a loop",
            body: "local s = ('x'):rep(4e6) while true do s:gsub('x', { x = 'yy' }) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "gsub with a string replacement on a long subject, in a loop",
            body: "local s = ('x'):rep(4e6) while true do s:gsub('x', '%0%0') end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "gsub with a function replacement on a long subject",
            body: "local s = ('x'):rep(1e7) s:gsub('x', function(c) return c end)", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "a pattern with too many captures", body: "return string.find(('a'):rep(100), ('(a)'):rep(40))",
            kind: .runtime, says: "too many captures", line: 5),
        HostileCase(
            name: "a frontier scan of a long subject, in a loop",
            body: "local s = ('a'):rep(1e6) while true do s:find('%f[b]') end", kind: .limit, says: budgetExceeded,
            line: 5),
        HostileCase(
            name: "a balance scan of a long subject",
            body: "local s = ('('):rep(1e5) while true do s:find('%b()') end", kind: .limit, says: budgetExceeded,
            line: 5),
        HostileCase(
            name: "a back-reference on a long subject",
            body: "local s = ('a'):rep(1e5) while true do s:find('(a*)%1b') end", kind: .limit,
            says: budgetExceeded, line: 5),
    ]

    static let recursion = [
        HostileCase(
            name: "an __index chain",
            body: "local t = {} for i = 1, 1e5 do t = setmetatable({}, { __index = t }) end return t.x",
            kind: .runtime, says: "'__index' chain too long; possible loop", line: 5),
        HostileCase(
            name: "an __index function that recurses",
            body: "local t t = setmetatable({}, { __index = function(s, k) return t[k] end }) return t.x",
            kind: .runtime, says: "stack overflow", line: 5),
        HostileCase(
            name: "a __tostring that recurses",
            body: "local o o = setmetatable({}, { __tostring = function(x) return tostring(x) end }) return tostring(o)",
            kind: .runtime, says: "stack overflow", line: 5),
        HostileCase(
            name: "an __eq that recurses",
            body: "local mt = {} mt.__eq = function(a, b) return a == b end\nreturn setmetatable({}, mt) == setmetatable({}, mt)",
            kind: .runtime, says: "stack overflow", line: 5),
        HostileCase(
            name: "an __lt that loops, in table.sort",
            body:
                "local mt = { __lt = function() while true do end end } local t = {}\nfor i = 1, 10 do t[i] = setmetatable({}, mt) end table.sort(t)",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a table.sort comparator that loops",
            body: "local t = { 3, 2, 1 } table.sort(t, function(a, b) while true do end end)", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "a table.sort of a big table with a Lua comparator",
            body: "local t = {} for i = 1, 1e6 do t[i] = -i end table.sort(t, function(a, b) return a < b end)",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a __concat that recurses",
            body: "local mt = {} mt.__concat = function(a, b) return a .. b end return setmetatable({}, mt) .. 'x'",
            kind: .runtime, says: "stack overflow", line: 5),
        HostileCase(
            name: "a __len that recurses",
            body: "local mt = {} mt.__len = function(a) return #a end return #setmetatable({}, mt)", kind: .runtime,
            says: "stack overflow", line: 5),
        HostileCase(
            name: "a __close that loops",
            body: "do local x <close> = setmetatable({}, { __close = function() while true do end end }) end",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "pcall nested until the C stack overflows, then a loop",
            body: "local function f() return pcall(f) end f() while true do end", kind: .limit, says: budgetExceeded,
            line: 5),
        HostileCase(
            name: "coroutine.wrap nested until the C stack overflows",
            body: "local function f() return coroutine.wrap(f)() end return f()", kind: .runtime,
            says: "stack overflow", line: 5),
        HostileCase(
            name: "coroutine.resume nested until the C stack overflows",
            body: "local function f() local ok, e = coroutine.resume(coroutine.create(f)) if not ok then error(e, 0) end end f()",
            kind: .runtime, says: "stack overflow", line: 5),
        HostileCase(
            name: "an xpcall handler that errors",
            body: "local ok, e = xpcall(error, function(m) error(m) end, 'x') error(e)", kind: .runtime,
            says: "error in error handling", line: 5),
        HostileCase(
            name: "an xpcall handler that recurses through xpcall",
            body: "local h h = function(m) return select(2, xpcall(error, h, m)) end local ok, e = xpcall(error, h, 'x') error(e)",
            kind: .runtime, says: "error in error handling", line: 5),
    ]

    /// A limit met inside something that catches errors must end the whole call.
    static let limitsCaught = [
        HostileCase(
            name: "a limit in a nested coroutine, caught by pcall in the outer one",
            body: "coroutine.wrap(function() pcall(coroutine.wrap(function() while true do end end)) while true do end end)()",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "coroutine.resume's false for a stopped coroutine is never seen",
            body: "local ok = coroutine.resume(coroutine.create(function() while true do end end))\nerror('resumed: ' .. tostring(ok))",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a stopped coroutine closed and resumed again, in a loop",
            body:
                "local co = coroutine.create(function() while true do end end)\nwhile true do pcall(coroutine.resume, co) pcall(coroutine.close, co) end",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "an xpcall handler that retries the looping call",
            body: "local function spin() while true do end end local function h() return xpcall(spin, h) end xpcall(spin, h)",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a __close that errors while a limit unwinds",
            body: "local x <close> = setmetatable({}, { __close = function() error('in close') end }) while true do end",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a __close that loops while a limit unwinds",
            body: "local x <close> = setmetatable({}, { __close = function() while true do end end }) while true do end",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a __close that loops in a coroutine closed after a limit",
            body:
                "local co = coroutine.create(function() local x <close> = setmetatable({}, { __close = function() while true do end end }) while true do end end)\ncoroutine.resume(co) coroutine.close(co)",
            kind: .limit, says: budgetExceeded, line: 5),
        HostileCase(
            name: "a memory error caught in a coroutine inside pcall",
            body: "pcall(coroutine.wrap(function() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end end))\nreturn 1",
            kind: .limit, says: memoryExceeded, line: 5),
        HostileCase(
            name: "an error that forges a limit's message",
            body: "error('" + budgetExceeded + "')", kind: .runtime, says: budgetExceeded, line: 5),
    ]

    static let errorObjectsMore = [
        HostileCase(
            name: "error whose __tostring yields",
            body: "error(setmetatable({}, { __tostring = function() coroutine.yield() end }))", kind: .runtime,
            says: "table value whose __tostring failed", line: 5),
        HostileCase(
            name: "error whose __tostring raises an object whose __tostring loops",
            body:
                "error(setmetatable({}, { __tostring = function() error(setmetatable({}, { __tostring = function() while true do end end })) end }))",
            kind: .runtime, says: "table value whose __tostring failed", line: 5),
        HostileCase(
            name: "error at level 99", body: "error('far away', 99)", kind: .runtime, says: "far away", line: 5),
        HostileCase(
            name: "error with a megabyte message is cut", body: "error(('x'):rep(1e6))", kind: .runtime,
            says: "x ... (a message of 1000022 bytes, cut) ... x", line: 5),  // with "hostile/plugin.lua:5: "
        HostileCase(
            name: "error whose __tostring returns a megabyte",
            body: "error(setmetatable({}, { __tostring = function() return ('y'):rep(1e6) end }))", kind: .runtime,
            says: "y ... (a message of 1000000 bytes, cut) ... y", line: 5),
    ]

    static let sandboxMore = [
        HostileCase(
            name: "rawset on the string metatable", body: "rawset(getmetatable(''), '__index', {})", kind: .runtime,
            says: "rawset: the string metatable is read-only", line: 5),
        HostileCase(
            name: "string.dump through a string's methods", body: "return ('').dump(print)", kind: .runtime,
            says: "field 'dump'", line: 5),
        HostileCase(
            name: "debug through _G", body: "return _G.debug.getinfo(1)", kind: .runtime,
            says: "undefined global 'debug'", line: 5),
        HostileCase(
            name: "os.getenv", body: "return os.getenv('HOME')", kind: .runtime, says: "field 'getenv'", line: 5),
        HostileCase(
            name: "collectgarbage with no option", body: "collectgarbage()", kind: .runtime,
            says: "collectgarbage(\"collect\") is not available to plugins", line: 5),
        HostileCase(
            // Lua marks an object for finalization when its metatable is set: a later __gc never runs.
            name: "a __gc added to a metatable after setmetatable",
            body: "local mt = {} local o = setmetatable({}, mt) mt.__gc = function() while true do end end o = nil error('done')",
            kind: .runtime, says: "done", line: 5),
        HostileCase(
            name: "require of a path outside the plugin", body: "require('../../etc/passwd')", kind: .runtime,
            says: "require", line: 5),
    ]

    /// A memory error Lua raises itself (not a guard) and nothing catches is placed at the item's line
    /// (4): Lua raises it without the message handler, and the stack is gone when the host sees it.
    static let memoryMore = [
        HostileCase(
            name: "closures", body: "local t = {} for i = 1, 1e9 do local j = i t[i] = function() return j end end",
            kind: .limit, says: memoryExceeded, line: 4),
        HostileCase(
            name: "coroutines", body: "local t = {} for i = 1, 1e9 do t[i] = coroutine.create(print) end",
            kind: .limit, says: memoryExceeded, line: 4),
        HostileCase(
            name: "string.rep in a pcall loop that keeps the results",
            body: "local t = {} while true do local ok, s = pcall(string.rep, 'x', 1e6) t[#t + 1] = s end", kind: .limit,
            says: memoryExceeded, line: 5),
        HostileCase(
            name: "table.concat doubling",
            body: "local t = { ('x'):rep(1e6) } while true do t[#t + 1] = table.concat(t) end", kind: .limit,
            says: memoryExceeded, line: 4),
        HostileCase(
            name: "utf8.char doubling", body: "local s = utf8.char(0x10FFFF) while true do s = s .. s end", kind: .limit,
            says: memoryExceeded, line: 4),
        HostileCase(
            name: "suspended coroutines holding big stacks",
            body:
                "local t = {} for i = 1, 1e9 do local co = coroutine.wrap(function(...) coroutine.yield() end) co(table.unpack({}, 1, 10000)) t[i] = co end",
            kind: .limit, says: memoryExceeded, line: 5),
    ]

    static let interceptors = [
        HostileCase(
            name: "interceptor: while true", item: .interceptor, body: "while true do end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "interceptor: string.packsize in a loop", item: .interceptor,
            body: "local f = ('i16'):rep(1e6) while true do string.packsize(f) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "interceptor: a memory bomb", item: .interceptor,
            body: "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end", kind: .limit,
            says: memoryExceeded, line: 5),
        HostileCase(
            name: "interceptor: error with a table", item: .interceptor, body: "error({})", kind: .runtime,
            says: "(error object is a table value)", line: 5),
        HostileCase(
            name: "interceptor: a limit caught by pcall before next", item: .interceptor,
            body: "pcall(function() while true do end end) return next(item)", kind: .limit, says: budgetExceeded,
            line: 5),
        HostileCase(
            name: "interceptor: gsub at scale after next", item: .interceptor,
            body: "next(item) local s = ('x'):rep(1e6) while true do s:gsub('x', { x = 'yy' }) end", kind: .limit,
            says: budgetExceeded, line: 5),
    ]

    static let sideEffectsAtScale = [
        HostileCase(
            name: "side effect: string.packsize in a loop", item: .sideEffect,
            body: "local f = ('i16'):rep(1e6) while true do string.packsize(f) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "side effect: gsub at scale", item: .sideEffect,
            body: "local s = ('x'):rep(1e6) while true do s:gsub('x', { x = 'yy' }) end", kind: .limit,
            says: sideEffectStopped, line: 5),
        HostileCase(
            name: "side effect: awaits inside pcall, in a loop", item: .sideEffect,
            body: "while true do pcall(ctx.deps.clock.tick) end", kind: .limit, says: "time limit of 0.5 s exceeded",
            line: 5),
        HostileCase(
            name: "side effect: a memory bomb between awaits", item: .sideEffect,
            body: "local t = {} for i = 1, 1e9 do if i % 1000 == 0 then ctx.deps.clock.tick() end t[i] = ('x'):rep(1000) .. i end",
            kind: .limit, says: sideEffectStopped, line: 5),
    ]

    /// What a side effect stopped by its budget, its memory or its time limit (0.5 s, which a loaded
    /// machine may reach first) is told in each case.
    static let sideEffectStopped = " exceeded"
}

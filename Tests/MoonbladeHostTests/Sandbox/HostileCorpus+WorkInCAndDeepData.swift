import MoonbladeHost

/// Sorts that compare in C and prints of huge strings, through each kind of plugin call: none runs a
/// Lua instruction while it works, so only the charges for their work stop them (before, each of the
/// sorts ran until it was done, minutes past the corpus's 60 s call time limit).
extension HostileCorpus {
    static let workInCMore = [
        HostileCase(
            name: "table.sort of long strings of zero bytes",
            body: "local z = ('\\0'):rep(8e6) local t = {} for i = 1, 200 do t[i] = z end table.sort(t)", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "table.sort of a table with a metatable, in a loop",
            body: "local t = setmetatable({}, {}) for i = 1, 1e5 do t[i] = -i end\nwhile true do table.sort(t) end",
            kind: .limit, says: budgetExceeded, line: 6),
        HostileCase(
            name: "interceptor: table.sort with math.ult, in a loop", item: .interceptor,
            body: "local t = {} for i = 1, 1e5 do t[i] = -i end while true do table.sort(t, math.ult) end", kind: .limit,
            says: budgetExceeded, line: 5),
        HostileCase(
            name: "side effect: table.sort with rawequal, in a loop", item: .sideEffect,
            body: "local t = {} for i = 1, 1e5 do t[i] = i end while true do table.sort(t, rawequal) end", kind: .limit,
            says: sideEffectStopped, line: 5),
        HostileCase(
            name: "print of a string larger than the budget allows",
            body: "local s = ('x'):rep(12e6)\nprint(s, s, s, s)", kind: .limit, says: budgetExceeded, line: 6),
    ]
}

/// Data a plugin hands the host nested a million tables deep: read as a `LuaValue`, it overflowed the
/// thread's stack and crashed the process (`moonblade run` died of a segmentation fault). Twenty
/// thousand levels here: built within the corpus's 0.5 s side-effect limit under a sanitizer too.
extension HostileCorpus {
    static let deepData = [
        HostileCase(
            name: "side effect: dispatches a payload twenty thousand tables deep", item: .sideEffect,
            body: "local t = {} for i = 1, 2e4 do t = { t } end ctx.dispatch('hostile.bump', t)", kind: .runtime,
            says: "hostile.bump payload: a table nested more than 512 levels deep has no data form", line: 5)
    ]
}

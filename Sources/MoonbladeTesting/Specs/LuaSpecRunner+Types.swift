extension LuaSpecRunner {
    /// The globals a spec file gets (`describe`, `it`, `assert`, `dispatch`, …) and the assertion names
    /// `assert` knows, read from a live spec VM.
    public static var vocabulary: (globals: [String], assertions: [String]) { SpecSession.vocabulary() }

    /// LuaLS (`---@meta`) definitions of the spec globals, to sit next to the host's
    /// (`PluginHost/luaTypeDefinitions(dependencies:)`) in a `.luarc.json` library.
    public static func luaTypeDefinitions() -> String {
        let (globals, assertions) = vocabulary
        var lines = [
            "---@meta moonblade-spec",
            "-- Editor types for Moonblade spec files, written by `moonblade types`: do not edit.",
            "",
            "---A spy or stub: a callable that records its calls as busted does.",
            "---@class moonblade.Spy",
            "---@field calls { vals: any[] }[] Each call's arguments.",
            "---@field returnvals { vals: any[] }[] Each call's results.",
            "---@field revert? fun() Puts the spied-on or stubbed function back.",
            "---@field returns fun(...): moonblade.Spy A table stub's answer from now on.",
            "---@field invokes fun(body: function): moonblade.Spy A table stub's answering function.",
            "---@overload fun(...): any",
            "",
            "---luassert's vocabulary: `is`, `are`, `was`, `has`, `does` read along, `not` and `no` negate",
            "---(assert.are_not.same, assert.has_no.errors); an unknown name fails at its line.",
            "---@class moonblade.Assert",
        ]
        // The spellings specs use most, so LuaLS knows `assert.is_true` as well as `assert.is.True`.
        lines += assertions.flatMap { name in
            ["", "is_", "is_not_", "are_", "are_not_", "has_", "has_no_"].map { "---@field \($0)\(name) fun(...)" }
        }
        lines += [
            "---@field \(["is", "are", "was", "has", "does", "not", "no", "is_not", "are_not", "was_not", "has_no"].joined(separator: " moonblade.Assert\n---@field ")) moonblade.Assert"
        ]
        lines += [
            "---@field spy fun(s: moonblade.Spy): moonblade.Assert Then .was.called(n), .called_with(...)",
            "---@field stub fun(s: moonblade.Spy): moonblade.Assert",
            "---@overload fun(value: any, message?: string): any",
            "",
        ]
        for name in globals {
            lines += (annotations[name] ?? ["---@type any", "\(name) = nil"]) + [""]
        }
        return lines.joined(separator: "\n")
    }

    private static let annotations: [String: [String]] = [
        "describe": ["---@param name string", "---@param body fun()", "function describe(name, body) end"],
        "context": ["---Same as describe.", "---@param name string", "---@param body fun()", "function context(name, body) end"],
        "it": [
            "---A case; `#words` in its name are tags. Without a body it is pending.", "---@param name string",
            "---@param body? fun()", "function it(name, body) end",
        ],
        "pending": ["---A case that is not run yet.", "---@param name string", "function pending(name) end"],
        "before_each": ["---@param body fun()", "function before_each(body) end"],
        "after_each": ["---@param body fun()", "function after_each(body) end"],
        "setup": ["---Runs before the block's before_each hooks (each case has its own VM).", "---@param body fun()", "function setup(body) end"],
        "teardown": ["---Runs after the block's after_each hooks.", "---@param body fun()", "function teardown(body) end"],
        "finally": ["---Runs when the case ends, passed or failed.", "---@param body fun()", "function finally(body) end"],
        "assert": ["---@type moonblade.Assert", "assert = nil"],
        "spy": [
            "---@class moonblade.SpyModule", "---@field new fun(body?: function): moonblade.Spy",
            "---@field on fun(target: table, key: any): moonblade.Spy", "---@type moonblade.SpyModule", "spy = nil",
        ],
        "stub": [
            "---`stub(\"group.name\", function)` answers ctx.deps.group.name; `stub(table, key, ...)` replaces a",
            "---table's function with one answering the values.", "---@param target string|table",
            "---@param ... any", "---@return moonblade.Spy", "function stub(target, ...) end",
        ],
        "dispatch": [
            "---Runs the item to completion (and what it set off); a side effect's result, or its error raised.",
            "---@param name string", "---@param payload? any", "---@return any", "function dispatch(name, payload) end",
        ],
        "apply_updater": [
            "---The state the Lua updater `name` leaves when run on `state` outside the store (no interceptor or",
            "---rule runs, the store's state is untouched), as `moonblade replay` runs it; its error raised.",
            "---@param state moonblade.State", "---@param name string", "---@param payload? any",
            "---@return moonblade.State", "function apply_updater(state, name, payload) end",
        ],
        "post": [
            "---Posts a notification: its on_notification rules fire, and what they set off settles.",
            "---@param name string", "---@param payload? any", "function post(name, payload) end",
        ],
        "state": ["---A copy of the store's state.", "---@return moonblade.State", "function state() end"],
        "storage": [
            "---The case's in-memory storage: what the plugin's ctx.deps.storage reads and writes.",
            "---@class moonblade.SpecStorage", "---@field read fun(key: string): any The value under key, or nil.",
            "---@field write fun(key: string, value: any) Stores value under key; nil removes it.",
            "---@type moonblade.SpecStorage", "storage = nil",
        ],
        "clock": [
            "---The clock the plugin's ctx.deps.clock reads: it stands at 1970-01-01T00:00:00Z until set.",
            "---@class moonblade.SpecClock",
            "---@field set fun(time: number|string) Seconds since 1970, or an ISO 8601 time (\"2026-11-21T15:30:00Z\").",
            "---@field advance fun(seconds: number) Moves the clock on.", "---@field now fun(): number Seconds since 1970.",
            "---@type moonblade.SpecClock", "clock = nil",
        ],
        "logs": [
            "---What the plugin logged through ctx.deps.log, oldest first: { level, message, plugin, <fields> }.",
            "---@return { level: string, message: string, plugin: string?, [string]: string }[]", "function logs() end",
        ],
        "set_state": [
            "---The state to start from, or, once started, the state from now on.", "---@param value moonblade.State",
            "function set_state(value) end",
        ],
    ]
}

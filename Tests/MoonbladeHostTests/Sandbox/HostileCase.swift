import MoonbladeHost
import Testing

/// One hostile or buggy plugin of the corpus, and what the host must make of it.
///
/// The plugin is built from a template (see ``source``) so that line numbers are predictable:
/// `topLevel` is line 1, the item's `body` starts at line 5.
struct HostileCase: Sendable, CustomTestStringConvertible {
    enum Item: Sendable {
        /// `body` is the updater `hostile.run(state, payload)`.
        case updater
        /// `body` is the side effect `hostile.run(ctx, payload)`.
        case sideEffect
        /// `body` is a Lua interceptor's `function(item, next)` for the updater `hostile.run` (other
        /// items pass it untouched).
        case interceptor
    }

    let name: String
    var item = Item.updater
    /// One line of code run when `plugin.lua` loads.
    var topLevel = ""
    var body = ""
    /// The side effect time limit the case runs under: the corpus's, or one it cannot reach for a case
    /// about another limit whose work a loaded machine could stretch past the corpus's.
    var sideEffectTimeLimit = HostileCorpus.sideEffectTimeLimit
    /// What the error must be: its kind, a fragment of its description and its line in `plugin.lua`.
    let kind: PluginError.Kind
    let says: String
    let line: Int

    var testDescription: String { name }

    /// Whether the plugin fails to load (the error is in `host.loadErrors`) rather than to run.
    var failsToLoad: Bool { kind == .load }

    var source: String {
        let bump = "    bump = function(state) state.counter = state.counter + 1 end,"
        let lines =
            switch item {
            case .updater:
                [
                    topLevel, "return {", "  updaters = {", "    run = function(state, payload)", body,
                    "    end,", bump, "  },", "}",
                ]
            case .interceptor:
                [
                    topLevel, "return {", "  interceptors = {",
                    "    function(item, next) if item.name ~= 'hostile.run' then return next(item) end", body,
                    "    end,", "  },", "  updaters = {", "    run = function(state) end,", bump, "  },", "}",
                ]
            case .sideEffect:
                [
                    topLevel, "return {", "  side_effects = {", "    run = function(ctx, payload)", body,
                    "    end,", "  },",
                    "  updaters = {", bump, "  },", "}",
                ]
            }
        return lines.joined(separator: "\n")
    }
}

import Foundation
import MoonbladeHost

/// Finds and runs the Lua specs of plugins: `Plugins/<name>/spec/*_spec.lua`, in the busted style.
///
/// ```lua
/// describe("counter.increment", function()
///   before_each(function() set_state({ counter = 1 }) end)
///   it("adds one", function()
///     dispatch("counter.increment")
///     assert.are.same({ counter = 2 }, state())
///   end)
/// end)
/// ```
///
/// Each case runs in a fresh store (`PluginHost<JSONValue>`) holding its own plugin, and the spec file
/// in a Lua VM of its own. Spec files have busted's DSL (`SpecPrelude`): `describe`, `it`, `pending`,
/// `before_each`, `after_each`, `setup`, `teardown`, `finally`, luassert's assertions with their
/// modifiers (`SpecAssertions`), `spy` and `stub`; and the store: `dispatch(name, payload)` (runs the
/// item to completion and returns a side effect's result, raising its error), `post(name, payload)`,
/// `state()`, `set_state(table)`, `apply_updater(state, name, payload)` (one updater outside the store,
/// as `moonblade replay` runs it) and `stub("group.name", function(arguments) … end)`, which answers
/// `ctx.deps.group.name` and records its calls like any stub.
public struct LuaSpecRunner: Sendable {
    /// The budget a runner has unless told otherwise: far above any sane spec, low enough that a
    /// runaway loop fails within a second or so.
    public static let defaultInstructionBudget = 100_000_000

    /// The side effects' time limit a runner has unless told otherwise: the host's own default.
    public static let defaultSideEffectTimeLimit = PluginHost<JSONValue>.Configuration().sideEffectTimeLimit

    /// The most Lua instructions a case may run between two waits for the store, and a stub in one
    /// call; nil for no limit. Past it the case fails with a limit error at the line it was running.
    public var instructionBudget: Int?

    /// The longest a plugin's side effect that a case dispatches may take in all, awaits included (the
    /// store's `sideEffectTimeLimit`); nil for no limit. Past it the side effect fails with a limit
    /// error, and so does the case's `dispatch` that waits for it: a side effect that never ends holds
    /// the run up this long. The host's default, 30 s, unless told otherwise.
    public var sideEffectTimeLimit: Duration?

    /// A runner; each ``run(_:)`` makes its own VM and store, so one runner can run cases concurrently.
    public init(
        instructionBudget: Int? = LuaSpecRunner.defaultInstructionBudget,
        sideEffectTimeLimit: Duration? = LuaSpecRunner.defaultSideEffectTimeLimit
    ) {
        self.instructionBudget = instructionBudget
        self.sideEffectTimeLimit = sideEffectTimeLimit
    }

    /// The cases of every plugin folder in `directory` (folders holding a `plugin.lua`), by folder name.
    public static func discover(pluginsIn directory: String) -> [LuaSpecCase] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return folders.sorted()
            .map { "\(directory)/\($0)" }
            .filter { FileManager.default.fileExists(atPath: "\($0)/plugin.lua") }
            .flatMap { discover(plugin: $0) }
    }

    /// The cases of the spec files in `<directory>/spec`, by file name, then in declaration order.
    public static func discover(plugin directory: String) -> [LuaSpecCase] {
        let plugin = URL(fileURLWithPath: directory).lastPathComponent
        let specDirectory = "\(directory)/spec"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: specDirectory)) ?? [])
            .filter { $0.hasSuffix("_spec.lua") }
            .sorted()
        return files.flatMap { fileName -> [LuaSpecCase] in
            let template = LuaSpecCase(
                plugin: plugin, pluginDirectory: directory, file: "\(specDirectory)/\(fileName)", names: [fileName],
                line: 1, index: 0)
            do throws(LuaSpecFailure) {
                let session = try SpecSession(
                    file: template.file, chunkName: template.chunkName, pluginDirectory: directory,
                    instructionBudget: defaultInstructionBudget, sideEffectTimeLimit: defaultSideEffectTimeLimit)
                return try session.cases().enumerated().map { index, declared in
                    var specCase = template
                    specCase.names = declared.names
                    specCase.line = declared.line
                    specCase.index = index
                    return specCase
                }
            } catch {
                var broken = template
                broken.line = error.line
                broken.loadFailure = error
                return [broken]
            }
        }
    }

    /// Runs one case in a fresh VM and store; a broken spec file's case fails with its load error.
    public func run(_ specCase: LuaSpecCase) async -> LuaSpecResult {
        if let failure = specCase.loadFailure { return .failed(failure) }
        let session: SpecSession
        let declared: [SpecSession.DeclaredCase]
        do throws(LuaSpecFailure) {
            session = try SpecSession(
                file: specCase.file, chunkName: specCase.chunkName, pluginDirectory: specCase.pluginDirectory,
                instructionBudget: instructionBudget, sideEffectTimeLimit: sideEffectTimeLimit)
            declared = try session.cases()
        } catch {
            return .failed(error)
        }
        guard declared.indices.contains(specCase.index), declared[specCase.index].names == specCase.names else {
            return .failed(
                LuaSpecFailure(
                    message: "the case \"\(specCase.names.joined(separator: " "))\" is no longer in the file",
                    file: specCase.file, line: specCase.line))
        }
        return await session.run(caseAt: specCase.index, line: specCase.line)
    }
}

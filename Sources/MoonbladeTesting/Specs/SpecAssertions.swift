import Foundation
import MoonbladeLua

/// The assertions, spies and stubs of the spec DSL, in Lua: luassert's (busted's) vocabulary and
/// verdicts, with failure messages that show both values.
///
/// `assert.<modifiers>.<name>` reads like luassert: the path is split at `.` and `_`; `is`, `are`,
/// `was`, `has`, `does` are filler, `not` and `no` negate, the rest names the assertion
/// (`assert.are_not.same`, `assert.has_no.errors`, `assert.spy(s).was.called_with(1)`). A name that is
/// no assertion fails at the spec line with the list of known ones. Part of `SpecPrelude/source`:
/// it runs after the prelude's first lines (`host`, the locals) and defines `assert`, `spy`, `stub`.
enum SpecAssertions {
    /// `Lua/spec_assertions.lua`.
    static let source = String(luaResource: PackageResources.spec_assertions_lua)
}

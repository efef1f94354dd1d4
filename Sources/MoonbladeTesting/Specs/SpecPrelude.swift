import Foundation
import MoonbladeLua

/// The Lua side of the spec runner: the busted-style DSL and the store functions, run once in each
/// spec VM before the spec file (the assertions, spies and stubs come from `SpecAssertions`).
///
/// It is called with a table of host functions (`await`, `caller_line`, `start_dispatch`,
/// `start_post`, `start_apply`, `read_state`, `settle_start`, `set_state`, `add_stub`) and returns `{ list = …,
/// run = …, assertions = …, globals = … }` for the runner (the last two for editor types). `dispatch`,
/// `post` (and `set_state` once the store has started, and the case's first `state()`) await the store
/// through the shared `await` of ``LuaAwaitingCoroutine`` (boundary rule 2): `start_dispatch`
/// (`start_post`, `set_state`, `settle_start`) records the work, the runner does it with the VM
/// released and resumes the case with its outcome.
///
/// Each case runs in a VM of its own, so `setup` and `teardown` run once around each case (outside
/// its `before_each` and `after_each`): nothing a case does can leak into the next.
enum SpecPrelude {
    static let chunkName = "moonblade/spec.lua"

    static let source = head + SpecAssertions.source + dsl

    /// `Lua/spec_head.lua`: the host functions and the standard library as locals.
    private static let head = String(luaResource: PackageResources.spec_head_lua)

    /// `Lua/spec_dsl.lua`: the case tree, the store functions, the runner.
    private static let dsl = String(luaResource: PackageResources.spec_dsl_lua)
}

import Moonblade

/// An item that puts back a state the store had before (a journal's `goto`, `undo` or recovery):
/// plugin code does not see it. No Lua interceptor or observer rule runs for it, so no rule saves the
/// rewound state to storage or dispatches anything because of it; the store's listeners and Swift
/// interceptors (the journal's recorder among them) still see it.
package protocol StateRestoration: Dispatchable {}

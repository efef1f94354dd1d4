// An embedder writes `import MoonbladeHost` alone: the store's protocols and types (`State`, `Store`,
// `StateUpdater`, `SideEffect`, …) come with it, as GRDB's SQLite types come with `import GRDB`, and so
// does the place a plugin error names.
@_exported import Moonblade

@_exported import struct MoonbladeLua.LuaLocation

import ArgumentParser

/// How `--trace` prints spans: as an indented tree per top-level dispatch (`--trace`, `--trace tree`),
/// or as one JSON object per finished dispatch, for tools (`--trace json`).
enum TraceFormat: String, ExpressibleByArgument, CaseIterable {
    case tree
    case json

    /// `--trace` alone, or followed by a format: see ``OptionalValueOption``.
    static let option = OptionalValueOption(name: "--trace", defaultValue: tree.rawValue) { TraceFormat(rawValue: $0) != nil }
}

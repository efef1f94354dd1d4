import MoonbladeHost

extension Problem {
    /// The answer to a dispatch that failed with `error`: 404 for an unknown item (with the names it
    /// may have meant, from `itemNames`), 422 for what the plugin or its payload refused, 500 for the
    /// rest (the host's own failures).
    static func dispatchFailed(_ error: any Error, itemNames: [String]) -> Problem {
        guard let pluginError = error as? PluginError else {
            return Problem(.internalServerError, title: "dispatch failed", detail: String(describing: error))
        }
        var members = errorJSON(pluginError).objectMembers
        members["message"] = nil
        members["kind"] = nil
        switch pluginError.kind {
        case .unknownItem:
            let item = pluginError.item ?? ""
            let suggestions = ItemSuggestions.closest(to: item, among: itemNames)
            members["suggestions"] = .array(suggestions.map(JSONValue.string))
            let hint = suggestions.isEmpty ? "" : "; did you mean \(suggestions.joined(separator: " or "))?"
            return Problem(.notFound, title: "unknown item", detail: "no item is named \(item)\(hint)", members: members)
        case .invalidValue:
            return Problem(.unprocessableContent, title: "refused payload", detail: pluginError.description, members: members)
        case .runtime, .limit, .invalidState, .wrongKind:
            let title = pluginError.kind == .limit ? "plugin limit" : "plugin error"
            return Problem(.unprocessableContent, title: title, detail: pluginError.description, members: members)
        case .load, .shape, .duplicate, .invalidName, .unbound, .downgrade:
            return Problem(.internalServerError, title: "host error", detail: pluginError.description, members: members)
        }
    }
}

extension JSONValue {
    /// The members of an object; none for another value.
    var objectMembers: [String: JSONValue] {
        if case .object(let members) = self { members } else { [:] }
    }
}

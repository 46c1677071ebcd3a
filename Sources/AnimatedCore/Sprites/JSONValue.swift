/// A parsed JSON document. Objects keep their members in document order (an atlas's frames
/// play in the order the exporter wrote them).
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    var object: JSONObject? { if case .object(let o) = self { return o }; return nil }
    var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    var string: String? { if case .string(let s) = self { return s }; return nil }
    var number: Double? { if case .number(let n) = self { return n }; return nil }
    var bool: Bool? { if case .bool(let b) = self { return b }; return nil }

    /// Short name of the kind of value, for messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object: members in document order (keys are unique; the parser rejects duplicates).
struct JSONObject: Sendable, Equatable {
    var members: [(key: String, value: JSONValue)]

    init(_ members: [(key: String, value: JSONValue)] = []) { self.members = members }

    /// The member named `key` (linear: atlas objects are small, and frames are walked in order).
    subscript(key: String) -> JSONValue? {
        for m in members where m.key == key { return m.value }
        return nil
    }

    static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

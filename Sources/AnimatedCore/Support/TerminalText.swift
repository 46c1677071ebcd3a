/// Text from outside (server headers, URLs, file names, terminal replies) made safe to print
/// on a terminal: every C0 control, DEL and C1 control is shown as an escape (`\x1B`, `\x7F`,
/// `\u{9B}`), so that no byte of it can move the cursor, set the title, recolour or clear the
/// screen. The one function every message, status line and info line goes through.
package enum TerminalText {
    /// `text` with its controls escaped; `keepNewlines` leaves `\n` alone (for multi-line
    /// output whose line breaks are the program's own).
    package static func escaped(_ text: String, keepNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepNewlines) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for u in text.unicodeScalars {
            if !needsEscape(u, keepNewlines) { out.unicodeScalars.append(u); continue }
            let hex = String(u.value, radix: 16, uppercase: true)
            out += u.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{" + hex + "}"
        }
        return out
    }

    private static func needsEscape(_ u: Unicode.Scalar, _ keepNewlines: Bool) -> Bool {
        let v = u.value
        if v == 0x0A { return !keepNewlines }
        return v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v)
    }
}

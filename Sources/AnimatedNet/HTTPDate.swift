#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AnimatedCore

/// HTTP dates (RFC 9110 §5.6.7) as Unix seconds: the IMF-fixdate senders must use
/// ("Sun, 06 Nov 1994 08:49:37 GMT") and the two obsolete forms recipients must still read
/// ("Sunday, 06-Nov-94 08:49:37 GMT", asctime's "Sun Nov  6 08:49:37 1994").
///
/// Parsed by hand rather than with strptime, whose %a and %b follow the process's locale
/// (the player sets one for ncurses).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { String($0) }
        var day: Int?, month: Int?, year: Int?, clock: [Int]?
        switch words.count {
        case 4 where words[1].contains("-"):            // RFC 850: weekday, dd-Mon-yy hh:mm:ss GMT
            let d = words[1].split(separator: "-").map(String.init)
            guard d.count == 3 else { return nil }
            day = Int(d[0]); month = monthIndex(d[1]); year = Int(d[2])
            clock = time(words[2])
            if let y = year, y < 100 { year = y + (y < 70 ? 2000 : 1900) }
            guard words[3].uppercased() == "GMT" else { return nil }
        case 6:                                          // IMF-fixdate: wkd, dd Mon yyyy hh:mm:ss GMT
            day = Int(words[1]); month = monthIndex(words[2]); year = Int(words[3]); clock = time(words[4])
            guard words[5].uppercased() == "GMT" else { return nil }
        case 5:                                          // asctime: wkd Mon d hh:mm:ss yyyy
            month = monthIndex(words[1]); day = Int(words[2]); clock = time(words[3]); year = Int(words[4])
        default:
            return nil
        }
        guard let day, let month, let year, let clock, (1...31).contains(day), (1900...9999).contains(year),
              clock[0] < 24, clock[1] < 60, clock[2] <= 60 else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900); t.tm_mon = Int32(month); t.tm_mday = Int32(day)
        t.tm_hour = Int32(clock[0]); t.tm_min = Int32(clock[1]); t.tm_sec = Int32(clock[2])
        return Int(timegm(&t))
    }

    private static func monthIndex(_ s: String) -> Int? { months.firstIndex(of: s.lowercased()) }

    private static func time(_ s: String) -> [Int]? {
        let p = s.split(separator: ":").compactMap { Int($0) }
        return p.count == 3 && p.allSatisfy({ $0 >= 0 }) ? p : nil
    }
}

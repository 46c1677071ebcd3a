/// The version `animplay --version` prints (and the man page carries). Bumped by hand on release.
enum AnimplayVersion {
    static let string = "0.1.0"
}

/// The three states of a fence (seed 000). First start is `unknown`, never
/// `outside` by default: "no reliable fix yet" is not "surely outside".
public enum FenceState: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case unknown
    case inside
    case outside

    public var description: String { rawValue }
}

/// The EXIF orientation tag (0x0112): how the stored pixels must be turned to stand upright.
public enum ImageOrientation: Int, Sendable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Upside down (turn 180°).
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Transposed: the stored rows are the upright columns.
    case leftMirrored = 5
    /// Turn 90° clockwise to stand upright (a phone held upright).
    case right = 6
    /// Transversed: turn 90° clockwise and mirror.
    case rightMirrored = 7
    /// Turn 90° anticlockwise to stand upright.
    case left = 8

    /// Whether upright width and height are the stored height and width.
    public var swapsAxes: Bool { rawValue >= 5 }
}

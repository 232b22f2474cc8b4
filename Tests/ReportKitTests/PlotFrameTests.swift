import Foundation
import Testing
import _TestSupport

@testable import ReportKit

/// The one data-to-pixel scale and plot frame every SVG plot uses, and the one page frame every
/// HTML page uses.
@Suite struct PlotFrameTests {
    /// Pixels; the scale is a few floating-point operations on values of a few hundred.
    static let pixelTolerance = 1e-9

    @Test func scaleMapsTheDomainEndsToTheRangeEnds() {
        let x = LinearScale(domain: (10, 30), start: 50, length: 400)
        #expect(isClose(x(10), 50, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(x(30), 450, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(x(15), 150, absoluteTolerance: Self.pixelTolerance))
        // Outside the domain the line continues (nothing is clamped unless asked).
        #expect(isClose(x(40), 650, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(x(0), -150, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(x.atFraction(0.25), 150, absoluteTolerance: Self.pixelTolerance))
        #expect(!x(.nan).isFinite)
    }

    @Test func upwardAxisAndReversedDomain() {
        // A frame's y: data 0…8 onto pixels 212 (bottom) … 12 (top).
        let f = PlotFrame(
            width: 800, height: 270, left: 52, top: 12, plotWidth: 734, plotHeight: 200, x: (0, 1), y: (0, 8))
        #expect(isClose(f.y(0), 212, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(f.y(8), 12, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(f.y(2), 162, absoluteTolerance: Self.pixelTolerance))
        #expect(f.right == 786 && f.bottom == 212)
        // North up on a map: the domain runs high to low, the range downward.
        let north = LinearScale(domain: (100, -100), start: 8, length: 400)
        #expect(isClose(north(100), 8, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(north(-100), 408, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(north(0), 208, absoluteTolerance: Self.pixelTolerance))
    }

    @Test func clampedAndCapped() {
        let y = LinearScale(domain: (0, 10), start: 200, length: -200)
        #expect(isClose(y.clamped(25), 0, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(y.clamped(-5), 200, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(y.clamped(5), 100, absoluteTolerance: Self.pixelTolerance))
        // Capped holds the top only: a whisker below zero still reaches below the axis.
        #expect(isClose(y.capped(25), 0, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(y.capped(-5), 300, absoluteTolerance: Self.pixelTolerance))
        // A reversed domain clamps to the same interval.
        let reversed = LinearScale(domain: (10, 0), start: 0, length: 100)
        #expect(isClose(reversed.clamped(-1), 100, absoluteTolerance: Self.pixelTolerance))
        #expect(isClose(reversed.clamped(11), 0, absoluteTolerance: Self.pixelTolerance))
    }

    @Test func gridAndLabels() {
        let f = PlotFrame(
            width: 420, height: 280, left: 46, top: 10, plotWidth: 348, plotHeight: 226, x: (0, 2), y: (0, 1))
        let grid = f.yGrid(.covering(0, 1, intervals: 2), unit: " m")
        #expect(grid.components(separatedBy: "<line ").count - 1 == 3)
        #expect(grid.components(separatedBy: " m</text>").count - 1 == 1, "unit on the last label only: \(grid)")
        #expect(grid.contains("x1=\"46.0\" x2=\"394.0\" y1=\"236.0\""), "\(grid)")
        #expect(grid.contains("class=\"tick-y\" x=\"42.0\" y=\"127.0\" text-anchor=\"end\">0.5<"), "\(grid)")
        let ends = f.xLabels([(f.x(0), "0"), (f.x(1), "1"), (f.x(2), "2 s")], anchorEnds: true, gridLines: true)
        #expect(
            ends.contains("text-anchor=\"start\">0<") && ends.contains("text-anchor=\"middle\">1<")
                && ends.contains("text-anchor=\"end\">2 s<"), "\(ends)")
        #expect(ends.components(separatedBy: "<line ").count - 1 == 3)
        let centred = f.xLabels([(f.x(0), "0"), (f.x(2), "2")], anchorEnds: false, gridLines: false)
        #expect(
            !centred.contains("<line") && !centred.contains("\"start\"") && centred.contains("y=\"252.0\""),
            "\(centred)")
    }

    @Test func everyPageSharesOneHeadAndFooter() throws {
        let banner = HTMLPage.Banner(cssClass: "fail", heading: "A <b>", lines: ["one", "two"])
        let open = HTMLPage.open(title: "t & u", banner: banner, pageCSS: ".x{color:red}")
        #expect(open.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"))
        #expect(open.contains("<title>t &amp; u</title>"))
        #expect(open.contains("<style>" + HTMLPage.css + "\n.x{color:red}</style>"))
        #expect(
            open.hasSuffix("<header class=\"banner fail\"><h1>A &lt;b&gt;</h1><p>one</p><p>two</p></header>\n<main>\n"),
            "\(open)")
        #expect(
            HTMLPage.close(toolVersion: "1.0", note: "No coordinates.")
                == "</main>\n<footer>Generated by fencelab 1.0. No coordinates.</footer>\n</body>\n</html>\n")
    }

    /// The text of each `<text>` in `svg` with its box (7 px a character, 12 px a line, as placed).
    static func placedBoxes(_ texts: [String]) -> [LabelBox] {
        texts.map { t in
            let q = t.split(separator: "\"")
            let x = Double(q[3])! - 2
            let y = Double(q[5])! + 2
            let label = t.components(separatedBy: ">")[1].components(separatedBy: "<")[0]
            return LabelBox(x0: x, y0: y - 12, x1: x + LabelBox.width(of: label), y1: y)
        }
    }

    /// Marker labels never overprint each other or a tick label, and stay in their bounds; a label
    /// with no free place is dropped rather than drawn over something.
    @Test func markerLabelsAvoidEachOtherAndTheTickLabels() {
        let f = PlotFrame(
            width: 800, height: 300, left: 52, top: 12, plotWidth: 734, plotHeight: 260, x: (0, 1), y: (0, 4))
        let ticks = AxisTicks.covering(0, 4, intervals: 4)
        let obstacles = f.yTickBoxes(ticks)
        let bounds = LabelBox(x0: f.left, y0: 0, x1: f.right, y1: f.bottom)
        // Two marks on top of each other at the y axis's 0, as the seeds' 80/120/30 sits in a flutter plot.
        let texts = SVGPlots.placeLabels(
            [("recommended", f.x(0), f.y(0)), ("80/120/30", f.x(0.002), f.y(0))], bounds: bounds,
            obstacles: obstacles)
        #expect(texts.count == 2, "\(texts)")
        let boxes = Self.placedBoxes(texts)
        #expect(!boxes[0].overlaps(boxes[1]), "\(boxes)")
        for b in boxes {
            #expect(b.isInside(bounds), "\(b)")
            #expect(!obstacles.contains { $0.overlaps(b) }, "\(b) over a tick label")
        }
        // Left of the axis, the first free place without obstacles covers the "0" tick label; with them it does not.
        let whole = LabelBox(x0: 0, y0: 0, x1: 800, y1: 300)
        let item = [(text: "80/120/30", x: f.left - 40, y: f.y(0) + 10)]
        let zeroLabel = obstacles[0]
        #expect(Self.placedBoxes(SVGPlots.placeLabels(item, bounds: whole)).contains { $0.overlaps(zeroLabel) })
        let avoided = Self.placedBoxes(SVGPlots.placeLabels(item, bounds: whole, obstacles: obstacles))
        #expect(avoided.count == 1 && !avoided.contains { $0.overlaps(zeroLabel) }, "\(avoided)")
        // No room at all: dropped.
        #expect(SVGPlots.placeLabels([("80/120/30", 10, 10)], bounds: LabelBox(x0: 0, y0: 0, x1: 30, y1: 20)).isEmpty)
    }
}

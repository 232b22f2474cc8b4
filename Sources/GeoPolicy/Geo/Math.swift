#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

// The platform's libm, named once. GeoPolicy imports nothing else.
@usableFromInline @inline(__always) func _sin(_ x: Double) -> Double { sin(x) }
@usableFromInline @inline(__always) func _cos(_ x: Double) -> Double { cos(x) }
@usableFromInline @inline(__always) func _tan(_ x: Double) -> Double { tan(x) }
@usableFromInline @inline(__always) func _asin(_ x: Double) -> Double { asin(x) }
@usableFromInline @inline(__always) func _acos(_ x: Double) -> Double { acos(x) }
@usableFromInline @inline(__always) func _atan(_ x: Double) -> Double { atan(x) }
@usableFromInline @inline(__always) func _atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@usableFromInline @inline(__always) func _exp(_ x: Double) -> Double { exp(x) }
@usableFromInline @inline(__always) func _log(_ x: Double) -> Double { log(x) }
@usableFromInline @inline(__always) func _hypot(_ x: Double, _ y: Double) -> Double { hypot(x, y) }
@usableFromInline @inline(__always) func _pow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
@usableFromInline @inline(__always) func _sqrt(_ x: Double) -> Double { x.squareRoot() }
@usableFromInline @inline(__always) func _cbrt(_ x: Double) -> Double { cbrt(x) }
@usableFromInline @inline(__always) func _fabs(_ x: Double) -> Double { x.magnitude }

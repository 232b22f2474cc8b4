import CLibm

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

// The platform's libm, named once. GeoPolicy imports nothing else (CLibm is libm's sincos).
// `@inlinable` so that callers in other modules (the harness, an app) call libm directly instead
// of through a wrapper (≈ 10 instructions per call, 5 calls per haversine).
@inlinable @inline(__always) func _sin(_ x: Double) -> Double { sin(x) }
@inlinable @inline(__always) func _cos(_ x: Double) -> Double { cos(x) }
/// sin(x) and cos(x) in one call: on glibc its sincos, the same bits as `_sin` and `_cos` in
/// 8.4 ns against their 14.5 ns together (a C loop, glibc 2.36, the 2-core test machine; about as
/// many instructions); elsewhere the two calls.
@inlinable @inline(__always) package func _sinCos(_ x: Double) -> (sin: Double, cos: Double) {
    var s = 0.0
    var c = 0.0
    fl_sincos(x, &s, &c)
    return (s, c)
}
@inlinable @inline(__always) func _asin(_ x: Double) -> Double { asin(x) }
@inlinable @inline(__always) func _atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inlinable @inline(__always) func _exp(_ x: Double) -> Double { exp(x) }
@inlinable @inline(__always) func _sqrt(_ x: Double) -> Double { x.squareRoot() }
@inlinable @inline(__always) func _cbrt(_ x: Double) -> Double { cbrt(x) }

#if canImport(Glibc)
  import Glibc
#endif

/// glibc's allocator settings for a long-running worker, applied once at start.
///
/// Why: the serving process handles photos of up to 512 KiB, several at a time. glibc
/// raises its mmap threshold after the first such buffer is freed, so later ones come from
/// the heap arenas (one per busy thread) and their pages stay resident. With a fixed
/// threshold large buffers stay in mmap and go back to the system when freed; two arenas
/// bound the rest. At 100 alarms/s the serving process peaked at 71 MiB in a 10-minute run
/// without these settings and at 63 MiB in a 60 s run with them (set through glibc's
/// environment variables): not a like-for-like comparison, but the only one made. Most
/// of that memory turned out to be answers the HTTP server kept after sending them (fixed
/// in `HTTPExchange.takeResponse`); what these settings add on their own is unmeasured.
enum MemoryTuning {
  // From <malloc.h>, which Swift's Glibc module does not include.
  private static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
  private static let arenaMax: Int32 = -8  // M_ARENA_MAX

  static func apply() {
    #if canImport(Glibc)
      typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
      guard let symbol = dlsym(nil, "mallopt") else { return }
      let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
      _ = mallopt(mmapThreshold, 128 * 1024)
      _ = mallopt(arenaMax, 2)
    #endif
  }
}

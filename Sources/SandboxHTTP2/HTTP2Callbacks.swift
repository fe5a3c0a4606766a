import CNghttp2

/// The nghttp2 callbacks every connection's session uses. nghttp2 calls them synchronously
/// inside `nghttp2_session_mem_recv`/`_mem_send`, which only the owning `Connection` calls,
/// on the event loop's thread; `user_data` is that connection, unretained (the connection
/// deletes its session before it goes away, so the pointer never dangles).
final class HTTP2Callbacks {
  let pointer: OpaquePointer

  init() throws(HTTP2ServerError) {
    var callbacks: OpaquePointer?
    guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
      throw HTTP2ServerError(.http2, detail: "nghttp2_session_callbacks_new")
    }
    pointer = callbacks
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
      guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
      else { return 0 }
      connection(user).streamBegan(frame.pointee.hd.stream_id)
      return 0
    }
    nghttp2_session_callbacks_set_on_header_callback(callbacks) {
      _, frame, name, nameLength, value, valueLength, _, user in
      guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
      else { return 0 }
      connection(user).header(
        stream: frame.pointee.hd.stream_id,
        name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(
          decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
      return 0
    }
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
      _, _, streamID, data, length, user in
      connection(user).data(stream: streamID, UnsafeRawBufferPointer(start: data, count: length))
      return 0
    }
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
      guard let frame else { return 0 }
      let type = frame.pointee.hd.type
      let ended = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
      if ended, type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) {
        connection(user).requestComplete(stream: frame.pointee.hd.stream_id)
      }
      return 0
    }
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) {
      _, streamID, _, user in
      connection(user).streamClosed(streamID)
      return 0
    }
  }

  deinit { nghttp2_session_callbacks_del(pointer) }
}

private func connection(_ user: UnsafeMutableRawPointer?) -> Connection {
  Unmanaged<Connection>.fromOpaque(user!).takeUnretainedValue()
}

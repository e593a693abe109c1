package io.github.verbs4j.fabric.coord;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * The coordinator's wire format over TCP. Each message is a 4-byte big-endian length (of what
 * follows), then:
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                     length of the rest                        |  0
 * +---------------+---------------+-------------------------------+
 * |    version    |      op       |                               |  4
 * +---------------+---------------+                               +
 * |                   request id (64 bits)                        |  8
 * +                               +-------------------------------+
 * |                               |   body (op-specific) ...      | 12
 * +-------------------------------+-------------------------------+
 * </pre>
 *
 * Bodies use {@link DataOutputStream} encodings: strings as modified UTF-8 with a 16-bit length,
 * byte arrays as a 32-bit length and the bytes, integers big-endian. Requests carry a request id
 * the reply echoes; events carry 0. Ops: {@link #HELLO} (rank, size, address, host, topology, kvs
 * placement) → {@link #WELCOME} (nodeId, size, topology) or {@link #ERROR} (message); {@link
 * #DIRECTORY} (count, then nodeId, rank, address, host, up); {@link #PUT} (key, value, timeout ms)
 * → {@link #OK}; {@link #GET} (key, timeout ms) → {@link #VALUE} (value); {@link #BARRIER} (name)
 * → {@link #OK}; {@link #MISSING} (name) → {@link #RANKS} (count, ranks); {@link #HEARTBEAT};
 * {@link #PEER_DOWN} (nodeId); {@link #BYE}; {@link #STEP} → {@link #STEPPED}; {@link #KVS_USAGE}
 * → {@link #KVS_USED} (pairs, bytes, requests in flight).
 *
 * <p>With {@code verbs.fabric.kvs=hashed} the coordinator sends a member {@link #HELD_PUT} (key,
 * value, timeout ms) and {@link #HELD_GET} (key, timeout ms) under a request id of its own for the
 * keys that member holds; the member answers as the coordinator answers a request, {@link #OK},
 * {@link #VALUE} or {@link #ERROR} echoing that id, and the coordinator relays the answer ({@link
 * KvsRelay}). Version 2 added the placement, the timeouts, these two ops and {@link #KVS_USAGE}.
 */
public final class CoordinatorProtocol {
  /** Protocol version. */
  public static final int VERSION = 2;
  /** Offset of the version byte after the length. */
  public static final int VERSION_OFFSET = 4;
  /** Offset of the op byte. */
  public static final int OP_OFFSET = 5;
  /** Offset of the request id. */
  public static final int REQUEST_ID_OFFSET = 6;
  /** Offset of the body. */
  public static final int BODY_OFFSET = 14;
  /** Largest message accepted. */
  public static final int MAX_MESSAGE = 16 << 20;
  /**
   * Largest value a put may carry with {@code verbs.fabric.kvs=hashed}: half a message, so a relayed
   * put (the key and ids added) always fits in one.
   */
  public static final int MAX_VALUE = MAX_MESSAGE / 2;

  /** Join. */
  public static final int HELLO = 1;
  /** Join accepted. */
  public static final int WELCOME = 2;
  /** Request failed. */
  public static final int ERROR = 3;
  /** Node directory snapshot. */
  public static final int DIRECTORY = 4;
  /** Publish a key. */
  public static final int PUT = 5;
  /** Request done. */
  public static final int OK = 6;
  /** Wait for a key. */
  public static final int GET = 7;
  /** A key's value. */
  public static final int VALUE = 8;
  /** Enter a barrier. */
  public static final int BARRIER = 9;
  /** Ask which ranks a barrier misses. */
  public static final int MISSING = 10;
  /** Ranks. */
  public static final int RANKS = 11;
  /** Liveness. */
  public static final int HEARTBEAT = 12;
  /** A node went down. */
  public static final int PEER_DOWN = 13;
  /** Leaving. */
  public static final int BYE = 14;
  /** A rank's report for one round of modelled-time steps (round, next event, frames sent and received, left, at a barrier). */
  public static final int STEP = 15;
  /** A round's outcome: the earliest next event, the frames sent and received, whether every rank left, whether all wait in a barrier. */
  public static final int STEPPED = 16;
  /** Coordinator to holder ({@code verbs.fabric.kvs=hashed}): store a pair a member put (key, value, timeout ms). */
  public static final int HELD_PUT = 17;
  /** Coordinator to holder: answer with the key's value once it is stored (key, timeout ms). */
  public static final int HELD_GET = 18;
  /** Ask what the coordinator holds of the key-value store. */
  public static final int KVS_USAGE = 19;
  /** What it holds: pairs, bytes, requests it is relaying (three longs). */
  public static final int KVS_USED = 20;

  private CoordinatorProtocol() {}

  /** A received message: op, request id and a stream over the body. */
  record Message(int op, long requestId, DataInputStream body) {}

  /**
   * Reads one message.
   *
   * @param in the stream
   * @return the message
   * @throws IOException on EOF, I/O error, or a malformed envelope (bad length or version)
   */
  static Message read(DataInputStream in) throws IOException {
    int len;
    try {
      len = in.readInt();
    } catch (EOFException e) {
      throw e;
    }
    if (len < 10 || len > MAX_MESSAGE) {
      throw new IOException("coordinator message length=" + len + " outside [10, " + MAX_MESSAGE + "]");
    }
    byte[] b = readGrowing(in, len);
    int version = b[0] & 0xFF;
    if (version != VERSION) {
      throw new IOException("coordinator message version=" + version + ", expected " + VERSION);
    }
    DataInputStream body = new DataInputStream(new java.io.ByteArrayInputStream(b, 10, len - 10));
    long id = 0;
    for (int i = 2; i < 10; i++) {
      id = id << 8 | (b[i] & 0xFF);
    }
    return new Message(b[1] & 0xFF, id, body);
  }

  /**
   * Reads {@code len} bytes into an array that grows as they arrive (at most twice what has
   * arrived), so a declared length costs nothing until the bytes are really sent.
   */
  static byte[] readGrowing(DataInputStream in, int len) throws IOException {
    byte[] b = new byte[Math.min(len, 4096)];
    int have = 0;
    while (have < len) {
      if (have == b.length) {
        b = java.util.Arrays.copyOf(b, (int) Math.min(len, 2L * b.length));
      }
      int n = in.read(b, have, b.length - have);
      if (n < 0) {
        throw new EOFException("coordinator message ended after " + have + " of " + len + " bytes");
      }
      have += n;
    }
    return b;
  }

  /** Builds a message body. */
  @FunctionalInterface
  interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  /**
   * Writes one message and flushes (callers hold the stream's lock).
   *
   * @param out the stream
   * @param op the op
   * @param requestId the request id
   * @param body writes the body, or null
   * @throws IOException on I/O error
   */
  static void write(DataOutputStream out, int op, long requestId, Body body) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(64);
    DataOutputStream d = new DataOutputStream(bytes);
    d.writeByte(VERSION);
    d.writeByte(op);
    d.writeLong(requestId);
    if (body != null) {
      body.write(d);
    }
    d.flush();
    out.writeInt(bytes.size());
    bytes.writeTo(out);
    out.flush();
  }

  static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > MAX_MESSAGE) {
      throw new IOException("byte array length=" + n + " outside [0, " + MAX_MESSAGE + "]");
    }
    return readGrowing(in, n);
  }
}

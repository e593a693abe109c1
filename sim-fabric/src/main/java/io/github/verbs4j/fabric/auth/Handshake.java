package io.github.verbs4j.fabric.auth;

import io.github.verbs4j.fabric.FabricException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;

/**
 * Mutual challenge-response over one new connection, proving on both sides that the peer holds the
 * {@link JobSecret} without sending it. Three fixed-size messages, so nothing a stranger sends can
 * make either side allocate more than these few bytes:
 *
 * <pre>
 * client → server  HELLO     28 B: magic "V4JA", version 1, kind, client node, server node, 0, client nonce (16 B)
 * server → client  CHALLENGE 52 B: magic "V4JA", server nonce (16 B), HMAC-SHA256(secret, "verbs4j server" | HELLO | server nonce)
 * client → server  PROOF     32 B: HMAC-SHA256(secret, "verbs4j client" | HELLO | server nonce)
 * </pre>
 *
 * The client checks the server's proof before it sends its own (and before any frame), the server
 * checks the client's before it reads a frame. Fresh nonces on both sides make every proof good for
 * one connection only; the two labels keep a server's proof from being replayed as a client's. The
 * node ids are covered by both proofs, so a connection is bound to the node that opened it: the
 * fabric takes a frame's source from the connection, not from its header. Node ids are 0 on a
 * coordinator connection. Not thread-safe: one instance per connection and side.
 */
public final class Handshake {
  /** HELLO length. */
  public static final int HELLO_LENGTH = 28;
  /** CHALLENGE length. */
  public static final int CHALLENGE_LENGTH = 52;
  /** PROOF length. */
  public static final int PROOF_LENGTH = 32;
  /** "V4JA". */
  static final int MAGIC = 0x56344A41;
  static final int VERSION = 1;
  private static final int NONCE = 16;
  private static final byte[] SERVER_LABEL = "verbs4j server".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLIENT_LABEL = "verbs4j client".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a connection is for. */
  public enum Kind {
    /** A connection to the coordinator. */
    COORDINATOR,
    /** A data connection between two nodes. */
    DATA
  }

  /** Why a handshake failed; the metric tag of the rejected connection. */
  public enum Failure {
    /** The first bytes are not a HELLO of this version and kind. */
    BAD_HELLO("bad_hello"),
    /** A HELLO for another node, or from a node outside the job. */
    WRONG_NODE("wrong_node"),
    /** A proof that does not verify: the peer does not hold the job secret. */
    BAD_PROOF("bad_proof"),
    /** The peer did not finish in time. */
    TIMEOUT("timeout"),
    /** The connection closed during the handshake. */
    CLOSED("closed"),
    /**
     * TLS ({@code verbs.fabric.tls=on}): the peer did not complete a TLS handshake with a
     * certificate on the job's key ({@link JobTls}), or spoke plain text.
     */
    TLS("tls");

    private final String tag;

    Failure(String tag) {
      this.tag = tag;
    }

    /** @return the metric tag value */
    public String tag() {
      return tag;
    }
  }

  /** A failed handshake. */
  public static final class AuthException extends FabricException {
    private static final long serialVersionUID = 1L;
    private final transient Failure failure;

    /**
     * @param failure why
     * @param message what, naming values
     */
    public AuthException(Failure failure, String message) {
      super(message);
      this.failure = failure;
    }

    /** @return why */
    public Failure failure() {
      return failure;
    }
  }

  private final JobSecret secret;
  private final Kind kind;
  private final byte[] hello = new byte[HELLO_LENGTH];
  private final byte[] serverNonce = new byte[NONCE];

  private Handshake(JobSecret secret, Kind kind) {
    this.secret = secret;
    this.kind = kind;
  }

  /**
   * The client side.
   *
   * @param secret the job secret
   * @param kind what the connection is for
   * @param self this node's id (0 for the coordinator connection)
   * @param target the server's node id (0 for the coordinator)
   * @return the handshake; send {@link #hello()} first
   */
  public static Handshake client(JobSecret secret, Kind kind, int self, int target) {
    Handshake h = new Handshake(secret, kind);
    byte[] nonce = new byte[NONCE];
    RANDOM.nextBytes(nonce);
    ByteBuffer.wrap(h.hello).putInt(MAGIC).put((byte) VERSION).put((byte) (kind.ordinal() + 1)).putShort((short) self)
        .putShort((short) target).putShort((short) 0).put(nonce);
    return h;
  }

  /**
   * The server side.
   *
   * @param secret the job secret
   * @param kind what the connection is for
   * @return the handshake; feed it the client's HELLO with {@link #challenge}
   */
  public static Handshake server(JobSecret secret, Kind kind) {
    return new Handshake(secret, kind);
  }

  /** @return the client's HELLO (client side) */
  public byte[] hello() {
    return hello.clone();
  }

  /**
   * Server side: checks a HELLO and answers it.
   *
   * @param in the client's {@link #HELLO_LENGTH} bytes
   * @param self this server's node id (0 for the coordinator)
   * @param maxNode the largest client node id accepted (0 for the coordinator)
   * @return the CHALLENGE to send
   * @throws AuthException {@link Failure#BAD_HELLO} or {@link Failure#WRONG_NODE}
   */
  public byte[] challenge(byte[] in, int self, int maxNode) {
    ByteBuffer b = ByteBuffer.wrap(in, 0, HELLO_LENGTH);
    int magic = b.getInt();
    int version = b.get() & 0xFF;
    int k = b.get() & 0xFF;
    int client = b.getShort() & 0xFFFF;
    int target = b.getShort() & 0xFFFF;
    int reserved = b.getShort();
    if (magic != MAGIC || version != VERSION || k != kind.ordinal() + 1 || reserved != 0) {
      throw new AuthException(Failure.BAD_HELLO, "not a verbs4j " + kind + " hello (magic=0x" + Integer.toHexString(magic)
          + ", version=" + version + ", kind=" + k + ")");
    }
    if (target != self || (maxNode == 0 ? client != 0 : client < 1 || client > maxNode)) {
      throw new AuthException(Failure.WRONG_NODE, "hello from node " + client + " to node " + target + ", this is node "
          + self + " of " + maxNode);
    }
    System.arraycopy(in, 0, hello, 0, HELLO_LENGTH);
    RANDOM.nextBytes(serverNonce);
    byte[] out = new byte[CHALLENGE_LENGTH];
    ByteBuffer.wrap(out).putInt(MAGIC).put(serverNonce).put(proof(SERVER_LABEL));
    return out;
  }

  /** @return the node id the client claimed in its HELLO (server side, after {@link #challenge}) */
  public int clientNode() {
    return hello[6] << 8 & 0xFF00 | hello[7] & 0xFF;
  }

  /**
   * Client side: checks the server's proof and answers with this side's.
   *
   * @param in the server's {@link #CHALLENGE_LENGTH} bytes
   * @return the PROOF to send
   * @throws AuthException {@link Failure#BAD_HELLO} or {@link Failure#BAD_PROOF}: the server does not
   *     hold the job secret
   */
  public byte[] answer(byte[] in) {
    ByteBuffer b = ByteBuffer.wrap(in, 0, CHALLENGE_LENGTH);
    if (b.getInt() != MAGIC) {
      throw new AuthException(Failure.BAD_HELLO, "the server's answer is not a verbs4j challenge");
    }
    b.get(serverNonce);
    byte[] claimed = new byte[32];
    b.get(claimed);
    if (!MessageDigest.isEqual(claimed, proof(SERVER_LABEL))) {
      throw new AuthException(Failure.BAD_PROOF, "the server does not prove the job secret (wrong "
          + JobSecret.ENV + "?)");
    }
    return proof(CLIENT_LABEL);
  }

  /**
   * Server side: checks the client's proof.
   *
   * @param in the client's {@link #PROOF_LENGTH} bytes
   * @throws AuthException {@link Failure#BAD_PROOF} if the client does not hold the job secret
   */
  public void verify(byte[] in) {
    byte[] claimed = in.length == PROOF_LENGTH ? in : java.util.Arrays.copyOf(in, PROOF_LENGTH);
    if (!MessageDigest.isEqual(claimed, proof(CLIENT_LABEL))) {
      throw new AuthException(Failure.BAD_PROOF, "node " + clientNode() + " does not prove the job secret");
    }
  }

  private byte[] proof(byte[] label) {
    Mac m = secret.mac();
    m.update(label);
    m.update(hello);
    m.update(serverNonce);
    return m.doFinal();
  }
}

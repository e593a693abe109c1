package io.github.verbs4j.fabric.auth;

import io.github.verbs4j.fabric.FabricException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The job's shared secret: 32 random bytes that every process of a job holds and proves (never
 * sends) on each coordinator and data connection ({@link Handshake}). Whoever starts the job makes
 * it: the launcher (handing it to the ranks in {@link #ENV}), a standalone or test coordinator, or
 * rank 0 with an embedded coordinator (which also leave it in a 0600 file of the user's {@link
 * PrivateDir}, where ranks on the same host find it). A rank takes it from {@link #ENV}, else the
 * file named by {@link #ENV_FILE}, else that coordinator file — like a Slurm or PMIx job credential,
 * never from a command line. Immutable; {@link #toString()} does not show it.
 */
public final class JobSecret {
  /** Environment variable holding the secret as 64 hex digits. */
  public static final String ENV = "VERBS4J_JOB_SECRET";
  /** Environment variable naming a file (mode 0600 or stricter) that holds the secret in hex. */
  public static final String ENV_FILE = "VERBS4J_JOB_SECRET_FILE";
  /** Secret length in bytes. */
  public static final int LENGTH = 32;

  private static final SecureRandom RANDOM = new SecureRandom();
  private final SecretKeySpec key;
  private final byte[] bytes;

  private JobSecret(byte[] bytes) {
    this.bytes = bytes.clone();
    this.key = new SecretKeySpec(this.bytes, "HmacSHA256");
    mac(); // loads the JDK's crypto provider now, not in the middle of a handshake
  }

  /** @return a fresh random secret */
  public static JobSecret generate() {
    byte[] b = new byte[LENGTH];
    RANDOM.nextBytes(b);
    return new JobSecret(b);
  }

  /**
   * @param hex 64 hex digits
   * @return the secret
   * @throws FabricException naming the problem (not the value) if malformed
   */
  public static JobSecret parse(String hex, String where) {
    String h = hex.trim();
    if (h.length() != 2 * LENGTH) {
      throw new FabricException(where + ": job secret must be " + 2 * LENGTH + " hex digits, got " + h.length() + " characters");
    }
    try {
      return new JobSecret(HexFormat.of().parseHex(h));
    } catch (IllegalArgumentException e) {
      throw new FabricException(where + ": job secret is not hexadecimal", e);
    }
  }

  /**
   * The secret handed to this process: {@link #ENV}, else the file {@link #ENV_FILE} names.
   *
   * @param env the environment
   * @return the secret, or empty if neither is set
   * @throws FabricException if the value or file is malformed or the file is readable by others
   */
  public static Optional<JobSecret> fromEnvironment(Map<String, String> env) {
    String v = env.get(ENV);
    if (v != null && !v.isBlank()) {
      return Optional.of(parse(v, ENV));
    }
    String f = env.get(ENV_FILE);
    if (f != null && !f.isBlank()) {
      return Optional.of(read(Path.of(f.trim())));
    }
    return Optional.empty();
  }

  /**
   * The secret of a job whose coordinator listens on {@code port}: {@link #fromEnvironment}, else
   * the file a coordinator on this host and port left in the user's {@link PrivateDir}.
   *
   * @param env the environment
   * @param port the coordinator's port
   * @return the secret
   * @throws FabricException if there is none, saying where it was looked for
   */
  public static JobSecret forCoordinator(Map<String, String> env, int port) {
    Optional<JobSecret> s = fromEnvironment(env);
    if (s.isPresent()) {
      return s.get();
    }
    Path dir = PrivateDir.of("");
    return PrivateDir.findCoordinatorKey(dir, port).map(JobSecret::read).orElseThrow(() -> new FabricException(
        "no job secret: set " + ENV + " (hex) or " + ENV_FILE + " (a 0600 file) as the job's launcher gives it, or run on "
            + "the coordinator's host (no coordinator secret file for port " + port + " in " + dir + ")"));
  }

  /**
   * Reads a secret file: the first token is the secret in hex.
   *
   * @param file the file; it must be readable by its owner alone
   * @return the secret
   * @throws FabricException naming the file if it cannot be read, is group- or world-accessible,
   *     or is malformed
   */
  public static JobSecret read(Path file) {
    try {
      Set<PosixFilePermission> p = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
      for (PosixFilePermission bad : Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE)) {
        if (p.contains(bad)) {
          throw new FabricException("job secret file " + file + " has mode " + PosixFilePermissions.toString(p)
              + ": it must be readable by its owner only (chmod 600)");
        }
      }
      String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
      int sp = text.indexOf(' ');
      return parse(sp < 0 ? text : text.substring(0, sp), "job secret file " + file);
    } catch (IOException e) {
      throw new FabricException("cannot read job secret file " + file + ": " + e, e);
    }
  }

  /**
   * Writes the secret to a new file of mode 0600 (written aside, then moved into place).
   *
   * @param file where
   * @throws FabricException naming the file if it cannot be written
   */
  public void write(Path file) {
    try {
      Path tmp = Files.createTempFile(file.getParent(), ".secret", ".tmp",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try {
        Files.writeString(tmp, toHex() + "\n", StandardCharsets.US_ASCII);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException e) {
      throw new FabricException("cannot write job secret file " + file + ": " + e, e);
    }
  }

  /** @return the secret as 64 hex digits, for {@link #ENV} of a child process */
  public String toHex() {
    return HexFormat.of().formatHex(bytes);
  }

  /** @return a new HMAC-SHA256 keyed with the secret */
  Mac mac() {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(key);
      return m;
    } catch (GeneralSecurityException e) {
      throw new FabricException("HmacSHA256 unavailable: " + e, e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobSecret s && MessageDigest.isEqual(bytes, s.bytes);
  }

  @Override
  public int hashCode() {
    return bytes[0] | bytes[1] << 8;
  }

  @Override
  public String toString() {
    return "JobSecret{***}";
  }
}

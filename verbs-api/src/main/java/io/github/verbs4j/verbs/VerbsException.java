package io.github.verbs4j.verbs;

import java.util.Objects;

/**
 * An immediate verbs error: what a libibverbs call reports by returning an errno.
 *
 * <p>Thrown for bad arguments, wrong QP state, illegal transitions, full queues and closed or busy
 * objects. The message names the field, the value and the limit, and for a WR chain the index of
 * the first WR that was not posted (libibverbs' {@code bad_wr}): {@code num_sge=5 exceeds
 * max_send_sge=4 (wr #2)}. Errors on the data path are never thrown: they arrive as {@link
 * WorkCompletion} statuses or {@link AsyncEvent}s.
 *
 * <p>Unchecked, like {@link IllegalArgumentException}: almost every verbs call can fail this way
 * and callers decide where to handle it.
 */
public class VerbsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Errno errno;
  private final int badWrIndex;

  /**
   * Creates an exception.
   *
   * @param errno the errno-like code
   * @param message what failed: field, value, limit
   */
  public VerbsException(Errno errno, String message) {
    this(errno, message, -1, null);
  }

  /**
   * Creates an exception for a WR chain.
   *
   * @param errno the errno-like code
   * @param message what failed: field, value, limit
   * @param badWrIndex index of the first WR not posted, or -1
   * @param cause the cause, or null
   */
  public VerbsException(Errno errno, String message, int badWrIndex, Throwable cause) {
    super(badWrIndex >= 0 ? message + " (wr #" + badWrIndex + ")" : message, cause);
    this.errno = Objects.requireNonNull(errno, "errno");
    this.badWrIndex = badWrIndex;
  }

  /**
   * The errno-like code.
   *
   * @return the code
   */
  public Errno errno() {
    return errno;
  }

  /**
   * For a failed post: the index in the WR chain of the first WR that was not posted (the WRs
   * before it were posted). -1 when not a post error.
   *
   * @return the index of {@code bad_wr}, or -1
   */
  public int badWrIndex() {
    return badWrIndex;
  }

  /**
   * Shorthand for an {@link Errno#EINVAL} error.
   *
   * @param message what failed
   * @return the exception
   */
  public static VerbsException invalid(String message) {
    return new VerbsException(Errno.EINVAL, message);
  }
}

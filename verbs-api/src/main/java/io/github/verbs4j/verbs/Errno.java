package io.github.verbs4j.verbs;

/**
 * The errno values verbs4j reports in {@link VerbsException}, with their Linux numbers, as
 * libibverbs calls return them.
 */
public enum Errno implements VerbsEnum {
  /** Operation not permitted (e.g. a privileged Q_Key). */
  EPERM(1),
  /** No such entry (e.g. an unknown device). */
  ENOENT(2),
  /** I/O error (the fabric failed). */
  EIO(5),
  /** The object was closed. */
  EBADF(9),
  /** Try again. */
  EAGAIN(11),
  /** Out of memory, or a work queue is full. */
  ENOMEM(12),
  /** Bad address. */
  EFAULT(14),
  /** The object is still in use (children open, events unacked). */
  EBUSY(16),
  /** No such device. */
  ENODEV(19),
  /** Invalid argument, wrong state, illegal transition, bad attribute mask. */
  EINVAL(22),
  /** The operation is not supported by this provider (see the device capabilities). */
  EOPNOTSUPP(95),
  /** A blocking call timed out. */
  ETIMEDOUT(110);

  private static final EnumLookup<Errno> LOOKUP = EnumLookup.of(Errno.class, "errno");

  private final int value;

  Errno(int value) {
    this.value = value;
  }

  @Override
  public int value() {
    return value;
  }

  /**
   * Returns the constant with the Linux errno {@code value}.
   *
   * @param value an errno
   * @return the constant
   * @throws IllegalArgumentException if verbs4j does not use that errno
   */
  public static Errno fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}

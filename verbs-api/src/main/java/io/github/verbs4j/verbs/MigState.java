package io.github.verbs4j.verbs;

/**
 * Path migration state.
 *
 * <p>Mirrors {@code enum ibv_mig_state} of verbs.h; {@link #value()} is the exact verbs.h value.
 */
public enum MigState implements VerbsEnum {
  /** IBV_MIG_MIGRATED. */
  MIGRATED(0),
  /** IBV_MIG_REARM. */
  REARM(1),
  /** IBV_MIG_ARMED. */
  ARMED(2);

  private static final EnumLookup<MigState> LOOKUP = EnumLookup.of(MigState.class, "ibv_mig_state");

  private final int value;

  MigState(int value) {
    this.value = value;
  }

  @Override
  public int value() {
    return value;
  }

  /**
   * Returns the constant with the verbs.h value {@code value}.
   *
   * @param value a verbs.h value
   * @return the constant
   * @throws IllegalArgumentException naming the value if it is not defined
   */
  public static MigState fromValue(int value) {
    return LOOKUP.fromValue(value);
  }
}

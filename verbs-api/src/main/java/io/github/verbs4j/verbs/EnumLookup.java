package io.github.verbs4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * O(1) value-to-constant lookup for a {@link VerbsEnum}, shared by every mirrored enum.
 *
 * <p>Values up to 4096 use a dense array; larger values (flag bits such as {@code 1 << 20}) fall
 * back to a linear scan over the few constants, which only flag enums need.
 *
 * @param <E> the enum type
 */
public final class EnumLookup<E extends Enum<E> & VerbsEnum> {
  private static final int DENSE_LIMIT = 4096;

  private final Class<E> type;
  private final String cName;
  private final E[] constants;
  private final Object[] dense;

  private EnumLookup(Class<E> type, String cName) {
    this.type = type;
    this.cName = cName;
    this.constants = type.getEnumConstants();
    int max = -1;
    for (E e : constants) {
      if (e.value() >= 0 && e.value() < DENSE_LIMIT) {
        max = Math.max(max, e.value());
      }
    }
    this.dense = new Object[max + 1];
    for (E e : constants) {
      if (e.value() >= 0 && e.value() < DENSE_LIMIT) {
        if (dense[e.value()] != null) {
          throw new IllegalStateException(type.getSimpleName() + " has two constants with value " + e.value());
        }
        dense[e.value()] = e;
      }
    }
  }

  /**
   * Builds the lookup for {@code type}.
   *
   * @param type the enum class
   * @param cName the verbs.h name of the enum, used in error messages (e.g. {@code ibv_wc_status})
   * @param <E> the enum type
   * @return the lookup
   */
  public static <E extends Enum<E> & VerbsEnum> EnumLookup<E> of(Class<E> type, String cName) {
    return new EnumLookup<>(type, cName);
  }

  /**
   * Returns the constant with {@code value}.
   *
   * @param value a verbs.h value
   * @return the constant
   * @throws IllegalArgumentException naming the enum and the value if no constant has it
   */
  @SuppressWarnings("unchecked")
  public E fromValue(int value) {
    if (value >= 0 && value < dense.length && dense[value] != null) {
      return (E) dense[value];
    }
    if (value < 0 || value >= DENSE_LIMIT) {
      for (E e : constants) {
        if (e.value() == value) {
          return e;
        }
      }
    }
    throw new IllegalArgumentException(cName + " has no value " + value + " (0x" + Integer.toHexString(value) + ")");
  }

  /**
   * The bitwise OR of the values of {@code flags} (for flag enums whose values are single bits).
   *
   * @param flags the flags
   * @return the mask
   */
  public static int mask(Set<? extends VerbsEnum> flags) {
    int m = 0;
    for (VerbsEnum f : flags) {
      m |= f.value();
    }
    return m;
  }

  /**
   * The flags whose bits are set in {@code mask}.
   *
   * @param mask a bit mask
   * @return the set of flags
   * @throws IllegalArgumentException naming the enum and the unknown bits if {@code mask} has a bit
   *     that no constant carries
   */
  public EnumSet<E> fromMask(int mask) {
    EnumSet<E> set = EnumSet.noneOf(type);
    int rest = mask;
    for (E e : constants) {
      if (e.value() != 0 && (mask & e.value()) == e.value()) {
        set.add(e);
        rest &= ~e.value();
      }
    }
    if (rest != 0) {
      throw new IllegalArgumentException(cName + " mask 0x" + Integer.toHexString(mask)
          + " has unknown bits 0x" + Integer.toHexString(rest));
    }
    return set;
  }
}

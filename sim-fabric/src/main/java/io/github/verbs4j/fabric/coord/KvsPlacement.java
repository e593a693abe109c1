package io.github.verbs4j.fabric.coord;

import com.google.common.base.Utf8;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Where the job's key-value pairs live ({@code verbs.fabric.kvs}): all at the coordinator, or each
 * at the member its key hashes to (seed 003 §3.7: the root then holds none, a member the pairs that
 * hash to it, each at its own size).
 */
public enum KvsPlacement {
  /** The coordinator holds every pair (the default; every member trusts only the coordinator with them). */
  ROOT("root"),
  /** The member of rank {@link #holder} holds the pair; the coordinator relays puts and gets to it. */
  HASHED("hashed");

  /**
   * Bytes a held pair costs beyond its key's UTF-8 bytes and its value: the reference to it in the
   * holder's table. Seed 003 eq. 15 counts a pair as (64 + 8) bytes, 64 its measured size and 8 this.
   */
  public static final int ENTRY_OVERHEAD = 8;

  private static final HashFunction HASH = Hashing.murmur3_32_fixed();

  private final String value;

  KvsPlacement(String value) {
    this.value = value;
  }

  /** @return the setting's value, {@code root} or {@code hashed} */
  public String value() {
    return value;
  }

  /**
   * @param value {@code root} or {@code hashed}, any case
   * @return the placement
   * @throws IllegalArgumentException naming the value if it is neither
   */
  public static KvsPlacement fromValue(String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "root" -> ROOT;
      case "hashed" -> HASHED;
      default -> throw new IllegalArgumentException("verbs.fabric.kvs=" + value + " must be one of [root, hashed]");
    };
  }

  /**
   * The rank that holds {@code key} with {@link #HASHED}: murmur3_32 (Guava's fixed variant, the
   * same in every JVM) of the key's UTF-8 bytes, modulo {@code size}.
   *
   * @param key the key
   * @param size the job's size, at least 1
   * @return the holder's rank in {@code [0, size)}
   */
  public static int holder(String key, int size) {
    return Math.floorMod(HASH.hashString(key, StandardCharsets.UTF_8).asInt(), size);
  }

  /**
   * @param key a key
   * @param valueLength its value's length
   * @return what holding the pair costs: key UTF-8 bytes + value bytes + {@link #ENTRY_OVERHEAD}
   */
  public static long entryBytes(String key, int valueLength) {
    return Utf8.encodedLength(key) + (long) valueLength + ENTRY_OVERHEAD;
  }
}

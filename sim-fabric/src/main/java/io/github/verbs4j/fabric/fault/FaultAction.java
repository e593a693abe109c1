package io.github.verbs4j.fabric.fault;

import java.util.Locale;

/** A fault applied to one frame, or a state change of a node pair. */
public enum FaultAction {
  /** Drop the frame. */
  DROP(1, "drop"),
  /** Deliver the frame twice. */
  DUPLICATE(2, "dup"),
  /** Hold the frame back until the next frame of the pair has been sent (or the reorder window ends). */
  REORDER(4, "reorder"),
  /** Flip one payload bit. */
  CORRUPT(8, "corrupt"),
  /** Add {@code verbs.fault.delay-ns} to the frame's arrival. */
  DELAY(16, "delay"),
  /** Take the pair down from this frame on (frames dropped as link_down). */
  DOWN(32, "down"),
  /** Bring the pair up again from this frame on. */
  UP(64, "up");

  private final int bit;
  private final String word;

  FaultAction(int bit, String word) {
    this.bit = bit;
    this.word = word;
  }

  /** @return the bit of this action in a decision mask */
  public int bit() {
    return bit;
  }

  /** @return the word used in scripts and metric tags */
  public String word() {
    return word;
  }

  /**
   * @param word a script word
   * @return the action
   * @throws IllegalArgumentException naming the word if unknown
   */
  public static FaultAction fromWord(String word) {
    String w = word.trim().toLowerCase(Locale.ROOT);
    for (FaultAction a : values()) {
      if (a.word.equals(w) || a.name().toLowerCase(Locale.ROOT).equals(w)) {
        return a;
      }
    }
    throw new IllegalArgumentException("fault action '" + word + "' is not one of drop, dup, reorder, corrupt, delay, down, up");
  }
}

package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.Peach2Board;
import io.github.verbs4j.verbs.Context;

/** What tests in other packages (the kit environments) may reach inside a tca context. */
public final class TcaTestAccess {
  private TcaTestAccess() {}

  /**
   * @param ctx a context opened by the tca provider
   * @return its PEACH2 board
   * @throws IllegalArgumentException naming the class if it is not a tca context
   */
  public static Peach2Board board(Context ctx) {
    if (!(ctx instanceof TcaContext c)) {
      throw new IllegalArgumentException("not a tca context: " + ctx.getClass().getName());
    }
    return c.board();
  }
}

package io.github.verbs4j.examples.himeno;

import io.github.verbs4j.examples.mp.Communicator;
import java.io.OutputStream;
import java.io.PrintStream;
import picocli.CommandLine;

/** Runs the Himeno command on a communicator from tests of other packages. */
public final class HimenoRuns {
  private HimenoRuns() {}

  /**
   * @param comm the communicator
   * @param iterations Jacobi iterations
   * @param grid the process grid, e.g. {@code 3x2}
   * @return this rank's residual
   */
  public static float tiny(Communicator comm, int iterations, String grid) {
    HimenoCommand cmd = new HimenoCommand();
    new CommandLine(cmd).parseArgs("--size", "TINY", "--iterations", Integer.toString(iterations), "--grid", grid);
    cmd.output(new PrintStream(OutputStream.nullOutputStream()));
    return cmd.run(comm, false, "test");
  }
}

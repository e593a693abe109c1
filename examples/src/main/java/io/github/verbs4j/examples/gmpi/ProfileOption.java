package io.github.verbs4j.examples.gmpi;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The {@code --profile} option the GMPI programs share: which accelerator cost profile(s) to run. */
final class ProfileOption {
  @Option(names = "--profile", paramLabel = "NAME", defaultValue = "both",
      description = "Cost profile: paper, h200 or both (default: ${DEFAULT-VALUE}).")
  String profile;

  /**
   * @param spec the command, for the error
   * @return the profiles named
   * @throws ParameterException naming the value if it is not paper, h200 or both
   */
  List<AcceleratorCosts> costs(CommandSpec spec) {
    try {
      return GmpiArgsCommand.profiles(profile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--profile=" + profile + " must be paper, h200 or both");
    }
  }
}

package io.github.verbs4j.examples.gmpi;

import io.github.verbs4j.verbs.config.VerbsConfig;
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
  /**
   * The runtime's settings, in modelled time unless {@code verbs.time} is set: the fabric's message
   * times ({@link FabricTimes}) are read from the node clock (wall-clock figures are taken beside
   * them with {@code System.nanoTime}).
   *
   * @return the settings
   */
  static VerbsConfig modelledConfig() {
    VerbsConfig c = VerbsConfig.load();
    return c.isSet(VerbsConfig.TIME) ? c : c.with("verbs.time", "modelled");
  }

  List<AcceleratorCosts> costs(CommandSpec spec) {
    try {
      return GmpiArgsCommand.profiles(profile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--profile=" + profile + " must be paper, h200 or both");
    }
  }
}

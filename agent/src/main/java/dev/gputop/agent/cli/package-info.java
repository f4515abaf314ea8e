/**
 * The command line: {@link dev.gputop.agent.cli.Main} and its picocli commands ({@code run},
 * {@code demo}, {@code snapshot}, {@code top}, {@code check-config}, {@code discover}, {@code
 * engines}, {@code explain}, {@code gpus}, {@code version}), the options they share and the exit
 * codes they return. A command parses its options, starts what it needs from the packages below
 * ({@code lifecycle} for a running agent, {@code runtime} for one refresh, {@code top} for the
 * terminal view) and prints; nothing below imports this package.
 */
package dev.gputop.agent.cli;

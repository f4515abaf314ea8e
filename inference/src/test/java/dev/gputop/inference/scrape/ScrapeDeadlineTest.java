package dev.gputop.inference.scrape;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gputop.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScrapeDeadlineTest {

  @Test
  void remainingNanos_followsTheClock_andGoesBelowZeroOnceItPassed() {
    ManualClock clock = new ManualClock();
    ScrapeDeadline deadline = ScrapeDeadline.after(clock, Duration.ofSeconds(2));

    assertThat(deadline.remainingNanos()).isEqualTo(2_000_000_000L);
    clock.advance(Duration.ofMillis(1500));
    assertThat(deadline.remainingNanos()).isEqualTo(500_000_000L);
    clock.advance(Duration.ofSeconds(1));
    assertThat(deadline.remainingNanos()).isEqualTo(-500_000_000L);
  }

  @Test
  void remainingNanos_isNeverMoreThanTheTimeout_whateverTheClockSays() {
    // A deadline made on a reading later than the clock's next one (a clock that went back).
    ManualClock clock = new ManualClock();
    ScrapeDeadline deadline =
        new ScrapeDeadline(clock, clock.nanoTime() + 10_000_000_000L, 2_000_000_000L);

    assertThat(deadline.remainingNanos()).isEqualTo(2_000_000_000L);
  }
}

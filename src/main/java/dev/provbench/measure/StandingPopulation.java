package dev.provbench.measure;

import dev.provbench.load.LoadRun;
import dev.provbench.load.Population;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code population}: the standing claims beside the run ({@code --population}, {@link Population}) — how many, how
 * they were made, how long until all were Bound (the window opened only then), what was found, made and removed to
 * get there, and what their removal after the run did (or that they were kept). Facts of the run's set-up, not
 * figures of its window.
 */
public final class StandingPopulation implements Measurement {

    /**
     * @param count    population claims, all Bound before the window opened
     * @param mode     {@code provisioned} or {@code prebound}
     * @param seconds  from the population phase's start until all were Bound
     * @param existing population claims found in the namespace first (a kept one)
     * @param created  claims (with prebound: and PVs) made by this run
     * @param removed  claims found past {@code count}, removed
     * @param kept     left in place after the run ({@code --keep-population})
     * @param removal  what removing it after the run did; null when kept
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record PopulationFacts(long count, String mode, double seconds, long existing, long created, long removed,
                                  boolean kept, Removal removal) {
    }

    /** {@code left}: what was still there at the removal's timeout (kind and name). */
    public record Removal(long claimsDeleted, long volumesDeleted, double seconds, List<String> left) {
    }

    public static final SectionKind<PopulationFacts> POPULATION = SectionKind.of("population", PopulationFacts.class)
            .scope("the population's claims and PVs (not the run's: no figure of the window counts them)")
            .rows(p -> {
                List<Row> rows = new ArrayList<>();
                rows.add(new Row("population", "claims", String.format(Locale.ROOT, "%d %s, all Bound after %.1f s "
                        + "(found %d, made %d, removed %d)", p.count(), p.mode(), p.seconds(), p.existing(),
                        p.created(), p.removed())));
                rows.add(new Row("population", "after the run", p.kept() ? "kept (--keep-population)"
                        : p.removal() == null ? "not removed" : String.format(Locale.ROOT, "removed in %.1f s%s",
                        p.removal().seconds(), p.removal().left().isEmpty() ? ""
                                : "; LEFT " + p.removal().left().size() + " object(s)")));
                return rows;
            })
            .headline(p -> "beside a " + p.mode() + " population of " + p.count());

    private final LoadRun run;

    public StandingPopulation(LoadRun run) {
        this.run = run;
    }

    @Override
    public void report(ReportDraft d) {
        Population.Result r = run.population();
        if (r == null) {
            return;
        }
        Population.Removal x = run.populationRemoval();
        d.put(POPULATION, new PopulationFacts(r.count(), r.mode(), r.seconds(), r.existing(), r.created(), r.removed(),
                run.config().keepPopulation(), x == null ? null : new Removal(x.claimsDeleted(), x.volumesDeleted(),
                x.seconds(), x.left().size() > 100 ? List.copyOf(x.left().subList(0, 100)) : x.left())));
        if (x != null && !x.clean()) {
            d.warn("the population's removal left " + x.left().size() + " object(s): 'provbench cleanup --population "
                    + "--namespace " + run.config().namespace() + "' removes them");
        }
    }
}

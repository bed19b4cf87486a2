

def test_log_target_fits_the_log_and_predicts_seconds(store, synth):
    from iotune.learn import train

    study = "synth"
    plain = train(synth, "cart", "time")
    logged = train(synth, "cart", "time", log_target=True)
    assert logged.params == {"log_target": True}
    assert type(logged.estimator).__name__ == "TransformedTargetRegressor"
    configs = [t.config for t in store.trials(study=study)[:20]]
    predicted = logged.predict(configs)
    assert (predicted > 0).all() and predicted.shape == plain.predict(configs).shape


def test_cross_validation_holds_out_whole_configurations_so_repeats_do_not_leak(tmp_path):
    """Times unrelated to the parameters, each configuration repeated 4 times almost exactly: a tree that
    memorises the repeats scored R² near 1 with folds over trials; it predicts a configuration it has not seen
    no better than the mean, and the stored score must say so."""
    import numpy as np

    from iotune.learn import train
    from iotune.store import Store
    from iotune.stored import StoredStudy
    from tests.learn import synthetic

    sp = synthetic.space()
    rng = np.random.default_rng(1)
    with Store(tmp_path / "db.sqlite") as store:
        study = store.create_study("random", sp.to_yaml(), sp.hash, {"runner": "synthetic"}, "test data")
        for configuration in sp.enumerate():
            seconds = float(rng.lognormal(0.0, 0.5))  # this configuration's time: no relation to its settings
            for repeat in range(4):
                trial = store.start_trial(study.id, configuration.to_dict(), configuration.key,
                                          configuration.workload_key, repeat)
                store.finish_trial(trial, synthetic.measurement(seconds * (1 + 0.001 * repeat)))
        model = train(StoredStudy(store, study), "cart")
    assert model.metrics["in_sample"]["r2"] > 0.99  # it memorised the repeats
    assert model.metrics["cv"]["r2"] < 0.2

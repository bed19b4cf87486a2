

def test_log_target_fits_the_log_and_predicts_seconds(store):
    from iotune.learn import train

    study = "synth"
    plain = train(store, study, "cart", "time")
    logged = train(store, study, "cart", "time", log_target=True)
    assert logged.params == {"log_target": True}
    assert type(logged.estimator).__name__ == "TransformedTargetRegressor"
    configs = [t.config for t in store.trials(study=study)[:20]]
    predicted = logged.predict(configs)
    assert (predicted > 0).all() and predicted.shape == plain.predict(configs).shape

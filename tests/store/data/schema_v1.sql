-- An iotune store at schema version 1, as `sqlite3 iterdump` wrote it; the tests open and upgrade it.
BEGIN TRANSACTION;
CREATE TABLE measurements (
	id INTEGER NOT NULL, 
	trial_id INTEGER NOT NULL, 
	phase VARCHAR(32) NOT NULL, 
	bytes BIGINT NOT NULL, 
	seconds FLOAT NOT NULL, 
	open_seconds FLOAT, 
	transfer_seconds FLOAT, 
	close_seconds FLOAT, 
	ops BIGINT, 
	verify_errors BIGINT, 
	bandwidth_mib FLOAT, 
	CONSTRAINT pk_measurements PRIMARY KEY (id), 
	CONSTRAINT fk_measurements_trial_id_trials FOREIGN KEY(trial_id) REFERENCES trials (id) ON DELETE CASCADE
);
INSERT INTO "measurements" VALUES(1,1,'write',4194304,0.5,0.01,0.45,0.04,16,NULL,8.0);
INSERT INTO "measurements" VALUES(2,1,'read',4194304,0.25,0.01,0.2,0.04,16,0,16.0);
CREATE TABLE meta (
	"key" VARCHAR(64) NOT NULL, 
	value TEXT NOT NULL, 
	CONSTRAINT pk_meta PRIMARY KEY ("key")
);
INSERT INTO "meta" VALUES('schema_version','1');
CREATE TABLE platforms (
	id INTEGER NOT NULL, 
	fingerprint VARCHAR(40) NOT NULL, 
	hostname TEXT, 
	kernel TEXT, 
	os TEXT, 
	cpu TEXT, 
	cores INTEGER, 
	fs_type TEXT, 
	mpi_library TEXT, 
	mpi_version TEXT, 
	iotune_version TEXT, 
	python_version TEXT, 
	info_json TEXT NOT NULL, 
	CONSTRAINT pk_platforms PRIMARY KEY (id), 
	CONSTRAINT uq_platforms_fingerprint UNIQUE (fingerprint)
);
INSERT INTO "platforms" VALUES(1,'a6fb5068dd416cd8335863634342cc3283cad37a','node01','6.1.0','Debian 12','EPYC',64,'lustre','MPICH','4.2.0','0.1.0','3.11.7','{"cores":64,"cpu":"EPYC","fs_type":"lustre","hostname":"node01","iotune_version":"0.1.0","kernel":"6.1.0","mpi_library":"MPICH","mpi_version":"4.2.0","os":"Debian 12","python_version":"3.11.7"}');
CREATE TABLE studies (
	id INTEGER NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	created_at VARCHAR(40) NOT NULL, 
	description TEXT NOT NULL, 
	space_hash VARCHAR(128) NOT NULL, 
	space_yaml TEXT NOT NULL, 
	settings_json TEXT NOT NULL, 
	origin TEXT, 
	CONSTRAINT pk_studies PRIMARY KEY (id), 
	CONSTRAINT uq_studies_name UNIQUE (name)
);
INSERT INTO "studies" VALUES(1,'legacy','2026-11-21T23:02:34.328165+00:00','a test','hash-a','parameters: {}
','{"repeats":3,"runner":"builtin"}',NULL);
CREATE TABLE trials (
	id INTEGER NOT NULL, 
	uid VARCHAR(32) NOT NULL, 
	study_id INTEGER NOT NULL, 
	platform_id INTEGER, 
	config_key VARCHAR(64) NOT NULL, 
	workload_key VARCHAR(64) NOT NULL, 
	config_json TEXT NOT NULL, 
	repeat INTEGER NOT NULL, 
	state VARCHAR(16) NOT NULL, 
	error TEXT, 
	started_at VARCHAR(40), 
	finished_at VARCHAR(40), 
	runner TEXT, 
	command TEXT, 
	hints_requested_json TEXT, 
	hints_in_effect_json TEXT, 
	read_cache_mode TEXT, 
	wall_seconds FLOAT, 
	extra_json TEXT, 
	benchmark_json TEXT, 
	imported_from TEXT, 
	CONSTRAINT pk_trials PRIMARY KEY (id), 
	CONSTRAINT uq_trials_study_id_config_key_repeat UNIQUE (study_id, config_key, repeat), 
	CONSTRAINT ck_trials_state CHECK (state IN ('RUNNING', 'COMPLETE', 'FAILED', 'INVALID')), 
	CONSTRAINT uq_trials_uid UNIQUE (uid), 
	CONSTRAINT fk_trials_study_id_studies FOREIGN KEY(study_id) REFERENCES studies (id) ON DELETE CASCADE, 
	CONSTRAINT fk_trials_platform_id_platforms FOREIGN KEY(platform_id) REFERENCES platforms (id)
);
INSERT INTO "trials" VALUES(1,'2d6ab46f8acf4b8688d948b8584a76e5',1,1,'cfg0000','wl0','{"cb_nodes":1,"collective":true,"layout":null,"striping_unit":1048576}',0,'COMPLETE',NULL,'2026-11-21T23:02:34.349961+00:00','2026-11-21T23:02:34.361782+00:00','builtin','mpiexec -n 2 iotune-bench','{"cb_nodes":"4","romio_cb_write":"enable"}','{"cb_nodes":"2","romio_cb_write":"enable"}','drop_caches',1.5,'{"note":"test"}','{"api":"MPIIO","block_size":1048576,"collective":false,"env":{},"file_per_process":false,"fsync":true,"hints":{},"operation":"readwrite","processes":2,"segment_count":1,"transfer_size":262144,"verify":false}',NULL);
INSERT INTO "trials" VALUES(2,'3ef25e3667794e519d1d622bf529d028',1,1,'cfg0001','wl0','{"cb_nodes":2,"collective":false,"layout":null,"striping_unit":1048576}',0,'FAILED','disk full','2026-11-21T23:02:34.371992+00:00','2026-11-21T23:02:34.381770+00:00','builtin','','{}','{}','none',0.0,'{}','{"api":"MPIIO","block_size":1048576,"collective":false,"env":{},"file_per_process":false,"fsync":true,"hints":{},"operation":"readwrite","processes":2,"segment_count":1,"transfer_size":262144,"verify":false}',NULL);
INSERT INTO "trials" VALUES(3,'0cbf0405b11d458f978450feaa865614',1,NULL,'cfg0002','wl0','{"cb_nodes":4,"collective":true,"layout":null,"striping_unit":1048576}',0,'INVALID','stripe count > OSTs','2026-11-21T23:02:34.387099+00:00','2026-11-21T23:02:34.387099+00:00',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "trials" VALUES(4,'52b4041c72f74c1f861575dc57a312a5',1,1,'cfg0003','wl0','{"cb_nodes":1,"collective":false,"layout":null,"striping_unit":1048576}',0,'RUNNING',NULL,'2026-11-21T23:02:34.397994+00:00',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'{"api":"MPIIO","block_size":1048576,"collective":false,"env":{},"file_per_process":false,"fsync":true,"hints":{},"operation":"readwrite","processes":2,"segment_count":1,"transfer_size":262144,"verify":false}',NULL);
CREATE INDEX ix_trials_study_id_state ON trials (study_id, state);
CREATE INDEX ix_measurements_trial_id ON measurements (trial_id);
COMMIT;

// DriveSim: the scenario generator (issue 3 fills this module).

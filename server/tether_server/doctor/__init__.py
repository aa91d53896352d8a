"""`tether doctor`: checks of the installation, each with a verdict and a fix."""

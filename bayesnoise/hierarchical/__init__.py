from .models import *  # noqa  (temporary)

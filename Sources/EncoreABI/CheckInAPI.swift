// The C functions of check-ins (issues 16 and 17): in progress.
import CEncoreTypes
import EncoreCore

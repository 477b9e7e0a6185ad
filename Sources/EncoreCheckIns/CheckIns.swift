// Check-ins (issues 16 and 17): in progress.
import EncoreModel
